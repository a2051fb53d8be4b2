#include "openai_provider.h"

#include <algorithm>
#include <charconv>

#include "Poco/Net/Context.h"
#include "Poco/Net/HTTPRequest.h"
#include "Poco/Net/HTTPResponse.h"
#include "Poco/Net/HTTPSClientSession.h"
#include "Poco/Net/NetException.h"
#include "Poco/Net/SSLException.h"
#include "Poco/Net/SSLManager.h"
#include "Poco/URI.h"
#include "gantry/guard.h"
#include "gantry/net/low_latency_session.h"
#include "openai_api.h"

namespace gantry::openai {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kMaxRetries = 3;
constexpr seconds kMaxRetryAfter{60};
constexpr seconds kConnectTimeout{30};
constexpr std::size_t kMaxErrorDetail = 300;
constexpr milliseconds kEndOfBodyWait{50};
constexpr seconds kIdleReuse{4};
/// A whole (non-streamed) reply; far above any real one, low enough to bound memory.
constexpr std::size_t kMaxBody = 16 << 20;

Poco::Timespan timespan(std::chrono::steady_clock::duration d) {
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(d).count();
  return Poco::Timespan(std::max<std::int64_t>(micros, 1000));
}

int64_t millisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start).count();
}

std::string clip(std::string text) {
  if (text.size() > kMaxErrorDetail) text = text.substr(0, kMaxErrorDetail) + "…";
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// Retry-After in seconds (the HTTP-date form is ignored); -1 when absent or unusable.
int retryAfterSeconds(const Poco::Net::HTTPResponse& response) {
  std::string text = response.get("Retry-After", "");
  int value = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return -1;
  return value;
}

std::string httpHint(int code) {
  if (code == 401 || code == 403) return " (check LLM_API_KEY)";
  if (code == 404) return " (check LLM_MODEL and LLM_BASE_URL)";
  return "";
}

bool retryableStatus(int code) { return code == 408 || code == 429 || code >= 500; }

// Built by the first HTTPS connection, not at start: OpenSSL's set-up and the CA store cost
// about 3 ms of CPU, a sixth of a start, which a local endpoint over http never needs.
Poco::Net::Context::Ptr systemTlsContext() {
  static const Poco::Net::Context::Ptr context = [] {
    Poco::Net::initializeSSL();
    return Poco::Net::Context::Ptr(
        new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "/etc/ssl/certs",
                               Poco::Net::Context::VERIFY_RELAXED, 9, false));
  }();
  return context;
}

// False when the body is over kMaxBody; reading stops there.
bool readCapped(std::istream& in, std::string* body) {
  char buffer[64 * 1024];
  while (in && body->size() <= kMaxBody) {
    in.read(buffer, sizeof buffer);
    body->append(buffer, static_cast<std::size_t>(in.gcount()));
  }
  return body->size() <= kMaxBody;
}

}  // namespace

struct OpenAiProvider::Call {
  Call(const ChatRequest& req, const StreamCallbacks* cbs, const CancelToken& cancel, seconds limit)
      : request(req),
        // A constrained reply is one JSON document: read whole, it can become the text it
        // holds (unwrapTextAnswer) before any of it is shown.
        stream(req.stream && req.response_schema_json.empty()),
        callbacks(cbs),
        interrupt(cancel),
        start(Clock::now()),
        deadline(start + limit),
        silence(std::min<Clock::duration>(kStreamSilence, limit)),
        limit_seconds(limit.count()) {}

  const ChatRequest& request;
  const bool stream;
  const StreamCallbacks* callbacks;
  CallInterrupt interrupt;
  Clock::time_point start;
  Clock::time_point deadline;
  Clock::duration silence;
  int64_t limit_seconds;
  std::string_view body;  // encodeRequest's, on this thread: valid for the whole call
  int attempts = 0;
  int retry_after_s = -1;    // from the last failed attempt
  bool got_headers = false;  // of the current attempt
  int64_t first_token_ms = -1;
};

struct OpenAiProvider::Attempt {
  Result<ChatResponse> result;
  bool delivered = false;
};

OpenAiProvider::OpenAiProvider(Host& host, OpenAiConfig config)
    : host_(host), config_(std::move(config)) {
  Poco::URI uri(config_.endpoint);
  scheme_ = uri.getScheme();
  host_name_ = uri.getHost();
  port_ = uri.getPort();
  path_ = uri.getPathAndQuery();
}

// The published list changes only with the catalog; encoding it for every call cost more
// than the rest of the request's small messages.
std::shared_ptr<const std::string> OpenAiProvider::encodedTools(const ToolList& tools) {
  if (!tools || tools->empty()) return nullptr;
  std::lock_guard lock(tools_mutex_);
  if (tools != encoded_list_) {
    encoded_tools_ = std::make_shared<const std::string>(encodeTools(*tools));
    encoded_list_ = tools;
  }
  return encoded_tools_;
}

Result<ChatResponse> OpenAiProvider::chat(const ChatRequest& request,
                                          const StreamCallbacks* callbacks,
                                          const CancelToken& cancel) noexcept {
  return guard("model", [&]() -> Result<ChatResponse> {
    Call call(request, callbacks, cancel, seconds(config_.timeout_seconds));
    const auto tools = encodedTools(request.tools);
    Result<std::string_view> body =
        encodeRequest(request, {config_.model, config_.max_tokens, call.stream, tools.get()});
    if (!body.isOk()) return body.status();
    call.body = body.value();
    Result<ChatResponse> result = run(call);
    logCall(call, result);
    if (result.isOk() && !request.response_schema_json.empty()) {
      unwrapTextAnswer(result->message);
    }
    return result;
  });
}

Result<ChatResponse> OpenAiProvider::run(Call& call) {
  for (;;) {
    if (call.interrupt.cancelled()) return Status::cancelled("model: call cancelled");
    ++call.attempts;
    Attempt attempt = attemptOnce(call);
    if (attempt.result.isOk()) {
      ChatResponse& response = attempt.result.value();
      response.attempts = call.attempts;
      response.first_token_ms = call.first_token_ms;
      response.dur_ms = millisSince(call.start);
      return attempt.result;
    }
    const Status& status = attempt.result.status();
    // Once output reached the callbacks a retry would repeat it.
    if (!status.retryable() || attempt.delivered) return status;
    if (call.attempts > kMaxRetries) {
      return Status::retry(status.message() + " (gave up after " + std::to_string(call.attempts) +
                           " attempts)");
    }
    milliseconds delay = retryDelay(call);
    if (Clock::now() + delay >= call.deadline) return status;
    host_.log(LogLevel::kWarn, "model call failed; retrying",
              {{"error", status.message()},
               {"attempt", std::to_string(call.attempts)},
               {"delay_ms", std::to_string(delay.count())}});
    if (!call.interrupt.sleepFor(delay)) return Status::cancelled("model: call cancelled");
  }
}

// 1 s, 2 s, 4 s; the server's Retry-After instead when it sent one (at most 60 s).
std::chrono::milliseconds OpenAiProvider::retryDelay(const Call& call) {
  if (call.retry_after_s >= 0) {
    return std::min<milliseconds>(seconds(call.retry_after_s), kMaxRetryAfter);
  }
  return seconds(1 << (call.attempts - 1));
}

OpenAiProvider::Attempt OpenAiProvider::attemptOnce(Call& call) {
  StreamAssembler assembler(call.callbacks);
  call.retry_after_s = -1;
  call.got_headers = false;
  Attempt attempt{Status::error("model: no attempt"), false};
  try {
    attempt.result = exchange(call, assembler);
  } catch (const Poco::TimeoutException&) {
    attempt.result = timeoutStatus(call);
  } catch (const Poco::Net::SSLException& e) {
    attempt.result = Status::error("model: TLS with " + host_name_ + " failed: " + e.displayText() +
                                   " (check LLM_BASE_URL)");
  } catch (const Poco::Exception& e) {
    attempt.result =
        call.got_headers
            ? Status::retry("model: reply from " + config_.endpoint +
                            " broke off: " + e.displayText())
            : Status::retry("model: request to " + config_.endpoint +
                            " failed: " + e.displayText() +
                            " (check LLM_BASE_URL and that the model server is running)");
  }
  if (call.interrupt.cancelled()) attempt.result = Status::cancelled("model: call cancelled");
  attempt.delivered = assembler.delivered();
  return attempt;
}

// One request on one connection: an idle pooled connection first and, when the server had
// closed that one before replying, once more on a new connection (not counted as a retry).
Result<ChatResponse> OpenAiProvider::exchange(Call& call, StreamAssembler& assembler) {
  std::unique_ptr<Poco::Net::HTTPClientSession> session = pool_.take();
  for (;;) {
    bool reused = session != nullptr;
    if (!reused) session = newSession();
    prepareSession(call, *session);
    try {
      bool reusable = false;
      Result<ChatResponse> result = Status::error("model: no reply");
      {
        AttachedSocket attached(call.interrupt, session->socket());
        result = converse(call, *session, assembler, &reusable);
      }
      if (reusable) pool_.give(std::move(session));
      return result;
    } catch (const Poco::Exception&) {
      if (!reused || call.got_headers || call.interrupt.cancelled()) throw;
      session.reset();
    }
  }
}

Result<ChatResponse> OpenAiProvider::converse(Call& call, Poco::Net::HTTPClientSession& session,
                                              StreamAssembler& assembler, bool* reusable) {
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, path_,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  request.setContentType("application/json");
  request.set("Accept", call.stream ? "text/event-stream" : "application/json");
  if (!config_.api_key.empty()) request.set("Authorization", "Bearer " + config_.api_key);
  net::sendRequest(session, request, call.body);
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  in.exceptions(std::ios::badbit);
  call.got_headers = true;
  if (response.getStatus() < 200 || response.getStatus() > 299) {
    return httpFailure(call, response, in);
  }
  if (call.stream && response.getContentType().find("text/event-stream") == 0) {
    Result<ChatResponse> result = readStream(call, session, in, assembler);
    *reusable = result.isOk() && response.getKeepAlive() && endOfBody(session, in);
    return result;
  }
  std::string body;
  if (!readCapped(in, &body)) {
    return Status::error("model: the response from " + config_.endpoint + " is over " +
                         std::to_string(kMaxBody >> 20) + " MB");
  }
  *reusable = response.getKeepAlive();
  Result<ChatResponse> parsed = parseResponse(body);
  if (!parsed.isOk()) return bodyFailure(parsed.status().message());
  return parsed;
}

// After [DONE] only the end of the chunked body should follow; a connection is reused only
// when it arrives at once.
bool OpenAiProvider::endOfBody(Poco::Net::HTTPClientSession& session, std::istream& in) {
  try {
    session.socket().setReceiveTimeout(timespan(kEndOfBodyWait));
    return in.peek() == std::char_traits<char>::eof();
  } catch (const Poco::Exception&) {
    return false;
  }
}

Result<ChatResponse> OpenAiProvider::readStream(Call& call, Poco::Net::HTTPClientSession& session,
                                                std::istream& in, StreamAssembler& assembler) {
  SseParser sse;
  auto on_data = [&](std::string_view data) {
    Status status = assembler.onData(data);
    if (call.first_token_ms < 0 && assembler.sawDelta()) {
      call.first_token_ms = millisSince(call.start);
    }
    return status;
  };
  char buffer[16384];
  while (!assembler.done()) {
    setReadTimeout(call, session);
    if (in.peek() == std::char_traits<char>::eof()) break;
    std::streamsize n = in.readsome(buffer, sizeof buffer);
    Status status = sse.feed({buffer, static_cast<std::size_t>(n)}, on_data);
    if (!status.isOk()) return bodyFailure(status.message());
  }
  Status status = sse.finish(on_data);
  if (!status.isOk()) return bodyFailure(status.message());
  if (call.interrupt.cancelled()) return Status::cancelled("model: call cancelled");
  if (!assembler.complete()) {
    return Status::retry("model: stream from " + config_.endpoint + " ended before [DONE]");
  }
  return assembler.finish();
}

std::unique_ptr<Poco::Net::HTTPClientSession> OpenAiProvider::newSession() const {
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  if (scheme_ == "https") {
    session = net::makeLowLatencySession<Poco::Net::HTTPSClientSession>(host_name_, port_,
                                                                        systemTlsContext());
  } else {
    session = net::makeLowLatencySession<Poco::Net::HTTPClientSession>(host_name_, port_);
  }
  session->setKeepAlive(true);
  // Below common server idle timeouts (uvicorn: 5 s), so Poco reconnects before reusing a
  // connection the server is about to close.
  session->setKeepAliveTimeout(Poco::Timespan(kIdleReuse.count(), 0));
  return session;
}

// Limits for this attempt; a pooled connection's socket gets them directly.
void OpenAiProvider::prepareSession(Call& call, Poco::Net::HTTPClientSession& session) {
  Clock::duration remaining = call.deadline - Clock::now();
  if (remaining <= Clock::duration::zero()) throw Poco::TimeoutException("call deadline");
  Clock::duration receive = call.stream ? std::min(remaining, call.silence) : remaining;
  session.setTimeout(timespan(std::min<Clock::duration>(remaining, kConnectTimeout)),
                     timespan(remaining), timespan(receive));
  if (session.connected()) {
    session.socket().setSendTimeout(timespan(remaining));
    session.socket().setReceiveTimeout(timespan(receive));
  }
}

// Each read may wait for the stream-silence limit, but never past the whole-call deadline.
void OpenAiProvider::setReadTimeout(Call& call, Poco::Net::HTTPClientSession& session) {
  Clock::duration remaining = call.deadline - Clock::now();
  if (remaining <= Clock::duration::zero()) throw Poco::TimeoutException("call deadline");
  session.socket().setReceiveTimeout(timespan(std::min(remaining, call.silence)));
}

Status OpenAiProvider::timeoutStatus(const Call& call) const {
  if (Clock::now() + milliseconds(500) >= call.deadline) {
    return Status::error("model: no complete reply from " + config_.endpoint + " within " +
                         std::to_string(call.limit_seconds) + " s (LLM_TIMEOUT_SECONDS)");
  }
  auto silence = std::chrono::duration_cast<seconds>(call.silence).count();
  return Status::retry("model: no response for " + std::to_string(silence) + " s from " +
                       config_.endpoint);
}

Status OpenAiProvider::httpFailure(Call& call, const Poco::Net::HTTPResponse& response,
                                   std::istream& in) {
  std::string body;
  // An error body over the cap is cut, and one that cannot be read is left out: the status
  // line says enough.
  try {
    readCapped(in, &body);
  } catch (const Poco::Exception&) {
  }
  int code = response.getStatus();
  std::string reason = response.getReason();
  if (reason.empty()) reason = Poco::Net::HTTPResponse::getReasonForStatus(response.getStatus());
  std::string message =
      "model: HTTP " + std::to_string(code) + " " + reason + " from " + config_.endpoint;
  std::string detail = apiErrorMessage(body);
  if (!detail.empty()) message += ": " + clip(detail);
  message += httpHint(code);
  call.retry_after_s = retryAfterSeconds(response);
  return retryableStatus(code) ? Status::retry(message) : Status::error(message);
}

Status OpenAiProvider::bodyFailure(const std::string& detail) const {
  static constexpr std::string_view kApiError = "error: ";
  if (detail.rfind(kApiError, 0) == 0) {
    return Status::error("model: " + config_.endpoint +
                         " reported an error: " + clip(detail.substr(kApiError.size())));
  }
  return Status::error("model: malformed response from " + config_.endpoint + ": " + clip(detail));
}

void OpenAiProvider::logCall(const Call& call, const Result<ChatResponse>& result) {
  LogFields fields{{"model", config_.model},
                   {"attempts", std::to_string(call.attempts)},
                   {"dur_ms", std::to_string(millisSince(call.start))},
                   {"first_token_ms", std::to_string(call.first_token_ms)}};
  if (result.isOk()) {
    fields.emplace_back("prompt_tokens", std::to_string(result->usage.prompt_tokens));
    fields.emplace_back("completion_tokens", std::to_string(result->usage.completion_tokens));
  } else {
    fields.emplace_back("error", result.status().message());
  }
  host_.log(LogLevel::kDebug, "model call", fields);
}

Provider* createOpenAiProvider(Host& host, std::string* err) noexcept {
  try {
    Result<OpenAiConfig> config = readConfig(host);
    if (!config.isOk()) {
      *err = config.status().message();
      return nullptr;
    }
    return new OpenAiProvider(host, std::move(config.value()));
  } catch (const Poco::Exception& e) {
    *err = "openai: " + e.displayText();
  } catch (const std::exception& e) {
    *err = std::string("openai: ") + e.what();
  }
  return nullptr;
}

}  // namespace gantry::openai
