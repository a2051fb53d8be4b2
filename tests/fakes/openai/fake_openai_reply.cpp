// Replies in the chat-completions format: chat.completion objects, chat.completion.chunk
// events for streaming, and error bodies.

#include <ctime>
#include <sstream>

#include "Poco/JSON/Array.h"
#include "Poco/JSON/Stringifier.h"
#include "fake_openai_internal.h"

namespace gantry::testing {
namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;

constexpr std::size_t kPieceBytes = 8;

std::string toJson(const Object::Ptr& object) {
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(object, out);
  return out.str();
}

// Pieces of about kPieceBytes that never split a UTF-8 sequence.
std::vector<std::string> pieces(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(start + kPieceBytes, text.size());
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    out.push_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

std::string errorType(int status) {
  if (status == 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  if (status == 401) return "authentication_error";
  return "invalid_request_error";
}

Object::Ptr usageOf(const ParsedRequest& request, const ScriptedReply& reply) {
  std::size_t produced = reply.content.size() + reply.reasoning.size();
  for (const auto& call : reply.tool_calls) produced += call.arguments.size();
  int64_t prompt = reply.prompt_tokens.value_or(static_cast<int64_t>(request.body_size / 4));
  int64_t completion = reply.completion_tokens.value_or(static_cast<int64_t>(produced / 4 + 1));
  Object::Ptr usage = new Object;
  usage->set("prompt_tokens", prompt);
  usage->set("completion_tokens", completion);
  usage->set("total_tokens", prompt + completion);
  if (reply.cached_tokens) {
    Object::Ptr details = new Object;
    details->set("cached_tokens", *reply.cached_tokens);
    usage->set("prompt_tokens_details", details);
  }
  return usage;
}

Object::Ptr envelope(const char* object, const ParsedRequest& request, const ScriptedReply& reply,
                     int serial) {
  Object::Ptr out = new Object;
  out->set("id", "chatcmpl-fake" + std::to_string(serial));
  out->set("object", object);
  out->set("created", static_cast<int64_t>(std::time(nullptr)));
  out->set("model", reply.model.value_or(request.model));
  return out;
}

Object::Ptr toolCall(const ScriptedReply::Call& call, std::size_t index, bool stream) {
  Object::Ptr out = new Object;
  if (stream) out->set("index", static_cast<int>(index));
  out->set("id", call.id.empty() ? "call_fake" + std::to_string(index) : call.id);
  out->set("type", "function");
  Object::Ptr function = new Object;
  function->set("name", call.name);
  function->set("arguments", stream ? std::string() : call.arguments);
  out->set("function", function);
  if (!call.thought_signature.empty()) {
    Object::Ptr google = new Object;
    google->set("thought_signature", call.thought_signature);
    Object::Ptr extra = new Object;
    extra->set("google", google);
    out->set("extra_content", extra);
  }
  return out;
}

std::string finishReason(const ScriptedReply& reply) {
  return reply.tool_calls.empty() ? "stop" : "tool_calls";
}

// Writes the events of one stream; stalls once, after the first delta with data.
class StreamWriter {
 public:
  StreamWriter(std::ostream& out, const ParsedRequest& request, const ScriptedReply& reply,
               int serial, FakeOpenAiServer::State& state)
      : out_(out), request_(request), reply_(reply), serial_(serial), state_(state) {}

  void run() {
    Object::Ptr role = new Object;
    role->set("role", "assistant");
    role->set("content", "");
    chunk(role, false);
    for (const auto& piece : pieces(reply_.reasoning)) text(reply_.reasoning_field, piece);
    for (const auto& piece : pieces(reply_.content)) text("content", piece);
    for (std::size_t i = 0; i < reply_.tool_calls.size(); ++i) {
      if (!call(i)) return;  // cut: the caller closes the connection
    }
    finish();
  }

 private:
  void text(const std::string& field, const std::string& piece) {
    Object::Ptr delta = new Object;
    delta->set(field, piece);
    chunk(delta, true);
  }

  /// false when the stream is cut after the call's first piece of arguments.
  bool call(std::size_t index) {
    const ScriptedReply::Call& scripted = reply_.tool_calls[index];
    chunk(toolDelta(toolCall(scripted, index, true)), true);
    for (const auto& piece : pieces(scripted.arguments)) {
      Object::Ptr function = new Object;
      function->set("arguments", piece);
      Object::Ptr part = new Object;
      part->set("index", static_cast<int>(index));
      part->set("function", function);
      chunk(toolDelta(part), true);
      if (reply_.cut_mid_call) return false;
    }
    return true;
  }

  static Object::Ptr toolDelta(const Object::Ptr& call) {
    Array::Ptr calls = new Array;
    calls->add(call);
    Object::Ptr delta = new Object;
    delta->set("tool_calls", calls);
    return delta;
  }

  void finish() {
    Object::Ptr last = envelope("chat.completion.chunk", request_, reply_, serial_);
    last->set("choices", choices(new Object, finishReason(reply_)));
    event(toJson(last));
    if (request_.include_usage) {
      Object::Ptr usage = envelope("chat.completion.chunk", request_, reply_, serial_);
      usage->set("choices", Array::Ptr(new Array));
      usage->set("usage", usageOf(request_, reply_));
      event(toJson(usage));
    }
    event("[DONE]");
  }

  static Array::Ptr choices(const Object::Ptr& delta, const std::string& finish_reason) {
    Object::Ptr choice = new Object;
    choice->set("index", 0);
    choice->set("delta", delta);
    choice->set("finish_reason",
                finish_reason.empty() ? Poco::Dynamic::Var() : Poco::Dynamic::Var(finish_reason));
    Array::Ptr out = new Array;
    out->add(choice);
    return out;
  }

  void chunk(const Object::Ptr& delta, bool has_data) {
    Object::Ptr chunk = envelope("chat.completion.chunk", request_, reply_, serial_);
    chunk->set("choices", choices(delta, ""));
    event(toJson(chunk));
    if (has_data && !stalled_ && reply_.stall_ms > 0) {
      stalled_ = true;
      state_.sleepFor(reply_.stall_ms);
    }
  }

  void event(const std::string& data) {
    out_ << "data: " << data << "\n\n";
    out_.flush();
    if (!out_) throw std::runtime_error("client went away");
  }

  std::ostream& out_;
  const ParsedRequest& request_;
  const ScriptedReply& reply_;
  int serial_;
  FakeOpenAiServer::State& state_;
  bool stalled_ = false;
};

}  // namespace

void sendBody(Poco::Net::HTTPServerResponse& response, const std::string& content_type,
              const std::string& body) {
  response.setContentType(content_type);
  response.sendBuffer(body.data(), body.size());  // with Content-Length, so keep-alive holds
}

void sendError(Poco::Net::HTTPServerResponse& response, int status, const std::string& message,
               const std::string& param, int retry_after) {
  Object::Ptr error = new Object;
  error->set("message", message);
  error->set("type", errorType(status));
  error->set("param", param.empty() ? Poco::Dynamic::Var() : Poco::Dynamic::Var(param));
  error->set("code",
             status == 429 ? Poco::Dynamic::Var("rate_limit_exceeded") : Poco::Dynamic::Var());
  Object::Ptr body = new Object;
  body->set("error", error);
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  if (retry_after >= 0) response.set("Retry-After", std::to_string(retry_after));
  sendBody(response, "application/json", toJson(body));
}

void sendCompletion(Poco::Net::HTTPServerResponse& response, const ParsedRequest& request,
                    const ScriptedReply& reply, int serial) {
  Object::Ptr message = new Object;
  message->set("role", "assistant");
  bool no_content = reply.content.empty() && !reply.tool_calls.empty();
  message->set("content", no_content ? Poco::Dynamic::Var() : Poco::Dynamic::Var(reply.content));
  if (!reply.reasoning.empty()) message->set(reply.reasoning_field, reply.reasoning);
  if (!reply.tool_calls.empty()) {
    Array::Ptr calls = new Array;
    for (std::size_t i = 0; i < reply.tool_calls.size(); ++i) {
      calls->add(toolCall(reply.tool_calls[i], i, false));
    }
    message->set("tool_calls", calls);
  }
  Object::Ptr choice = new Object;
  choice->set("index", 0);
  choice->set("message", message);
  choice->set("finish_reason", finishReason(reply));
  Array::Ptr choices = new Array;
  choices->add(choice);
  Object::Ptr body = envelope("chat.completion", request, reply, serial);
  body->set("choices", choices);
  body->set("usage", usageOf(request, reply));
  sendBody(response, "application/json", toJson(body));
}

void sendStream(Poco::Net::HTTPServerResponse& response, const ParsedRequest& request,
                const ScriptedReply& reply, int serial, FakeOpenAiServer::State& state) {
  response.setContentType("text/event-stream");
  response.set("Cache-Control", "no-cache");
  response.setChunkedTransferEncoding(true);
  StreamWriter(response.send(), request, reply, serial, state).run();
}

}  // namespace gantry::testing
