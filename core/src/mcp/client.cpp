#include "mcp/client.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>

#include "log/log.h"
#include "mcp/jsonrpc.h"
#include "mcp/tool_result.h"
#include "tools/arguments.h"

namespace gantry::mcp {

struct Client::Pending {
  bool done = false;
  Outcome outcome;
};

namespace {

constexpr int kMethodNotFound = -32601;
constexpr int kMaxPages = 100;

std::string seconds(std::chrono::milliseconds duration) {
  const auto tenths = duration.count() / 100;
  return std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : "") +
         " s";
}

Poco::JSON::Object::Ptr initializeParams() {
  Poco::JSON::Object::Ptr info = new Poco::JSON::Object;
  info->set("name", "gantry");
  info->set("version", "0.1.0");
  Poco::JSON::Object::Ptr params = new Poco::JSON::Object;
  params->set("protocolVersion", jsonrpc::kProtocolVersions[0]);
  params->set("capabilities", Poco::JSON::Object::Ptr(new Poco::JSON::Object));
  params->set("clientInfo", info);
  return params;
}

}  // namespace

Client::Client(std::string server, std::unique_ptr<Transport> transport, Callbacks callbacks)
    : server_(std::move(server)),
      transport_(std::move(transport)),
      callbacks_(std::move(callbacks)) {}

Client::~Client() { close(); }

std::string Client::protocolVersion() const {
  std::lock_guard lock(mutex_);
  return protocol_version_;
}

bool Client::busy() const {
  std::lock_guard lock(mutex_);
  return !pending_.empty();
}

std::string Client::serverName() const {
  std::lock_guard lock(mutex_);
  return server_info_name_;
}

Status Client::start(std::chrono::milliseconds timeout) {
  auto status = transport_->open(this);
  if (!status.isOk()) return status;
  const std::int64_t id = next_id_++;
  auto pending = std::make_shared<Pending>();
  {
    std::lock_guard lock(mutex_);
    pending_[id] = pending;
  }
  const auto init_text = jsonrpc::request(id, "initialize", initializeParams());
  status = transport_->send(init_text, id, timeout);
  auto outcome = status.isOk() ? await(id, pending, timeout, nullptr) : Outcome{status, nullptr};
  if (!outcome.status.isOk()) return Status::retry("initialize: " + outcome.status.message());
  status = checkInitialize(outcome.result);
  if (!status.isOk()) return status;
  // The version header goes on every message after initialize, initialized included.
  const auto note_text = jsonrpc::notification("notifications/initialized", nullptr);
  transport_->initialized(protocolVersion(), init_text, note_text);
  status = transport_->send(note_text, std::nullopt, timeout);
  if (status.isOk()) transport_->sessionReady();
  return status;
}

Status Client::checkInitialize(const Poco::JSON::Object::Ptr& result) {
  if (result.isNull()) return Status::error("initialize: the result is not an object");
  const auto version = result->optValue<std::string>("protocolVersion", "");
  bool known = false;
  for (const char* ours : jsonrpc::kProtocolVersions) known = known || version == ours;
  if (!known) {
    return Status::error("initialize: the server speaks protocol \"" + version +
                         "\"; gantry speaks 2025-11-25, 2025-06-18 and 2025-03-26");
  }
  auto info = result->getObject("serverInfo");
  std::lock_guard lock(mutex_);
  protocol_version_ = version;
  if (!info.isNull()) server_info_name_ = info->optValue<std::string>("name", "");
  return Status::ok();
}

Client::Outcome Client::request(const std::string& method, const Poco::JSON::Object::Ptr& params,
                                std::chrono::milliseconds timeout, const CancelToken* cancel) {
  if (closed_) return {Status::retry("not connected"), nullptr};
  const std::int64_t id = next_id_++;
  auto pending = std::make_shared<Pending>();
  {
    std::lock_guard lock(mutex_);
    pending_[id] = pending;
  }
  auto status = transport_->send(jsonrpc::request(id, method, params), id, timeout);
  if (!status.isOk()) {
    std::lock_guard lock(mutex_);
    pending_.erase(id);
    return {status, nullptr};
  }
  return await(id, pending, timeout, cancel);
}

Client::Outcome Client::await(std::int64_t id, const std::shared_ptr<Pending>& pending,
                              std::chrono::milliseconds timeout, const CancelToken* cancel) {
  // CallContext hands out a const token; subscribing does not change its state.
  auto* token = const_cast<CancelToken*>(cancel);
  std::size_t subscription = 0;
  if (token != nullptr) {
    subscription = token->subscribe([this] {
      std::lock_guard lock(mutex_);
      answered_.notify_all();
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool done;
  {
    std::unique_lock lock(mutex_);
    done = answered_.wait_until(lock, deadline, [&] {
      return pending->done || (cancel != nullptr && cancel->cancelled());
    });
    done = pending->done;
    if (!done) pending_.erase(id);
  }
  if (token != nullptr) token->unsubscribe(subscription);
  if (done) return pending->outcome;
  const bool cancelled = cancel != nullptr && cancel->cancelled();
  notifyCancelled(id, cancelled ? "cancelled by the user" : "timed out");
  transport_->abandon(id);
  if (cancelled) return {Status::cancelled("cancelled"), nullptr};
  return {Status::retry("no answer within " + seconds(timeout)), nullptr, true};
}

void Client::notifyCancelled(std::int64_t id, const std::string& reason) {
  if (closed_) return;
  Poco::JSON::Object::Ptr params = new Poco::JSON::Object;
  params->set("requestId", id);
  params->set("reason", reason);
  auto status = transport_->send(jsonrpc::notification("notifications/cancelled", params),
                                 std::nullopt, std::chrono::milliseconds(10000));
  log::info("mcp_request_cancelled",
            {{"server", server_}, {"id", std::to_string(id)}, {"reason", reason}});
  if (!status.isOk()) {
    log::debug("mcp_cancel_not_sent", {{"server", server_}, {"error", status.message()}});
  }
}

Result<std::vector<RemoteTool>> Client::listTools(std::chrono::milliseconds timeout) {
  std::vector<RemoteTool> tools;
  std::string cursor;
  for (int page = 0; page < kMaxPages; ++page) {
    Poco::JSON::Object::Ptr params;
    if (!cursor.empty()) {
      params = new Poco::JSON::Object;
      params->set("cursor", cursor);
    }
    auto outcome = request("tools/list", params, timeout, nullptr);
    if (!outcome.status.isOk()) return Status::retry("tools/list: " + outcome.status.message());
    if (outcome.result.isNull()) return Status::error("tools/list: the result is not an object");
    auto list = outcome.result->getArray("tools");
    for (std::size_t i = 0; !list.isNull() && i < list->size(); ++i) {
      auto tool = list->getObject(static_cast<unsigned>(i));
      if (tool.isNull() || !tool->has("name")) continue;
      RemoteTool remote{tool->getValue<std::string>("name"),
                        tool->optValue<std::string>("description", ""),
                        tool->has("inputSchema") ? jsonrpc::stringify(tool->get("inputSchema"))
                                                 : R"({"properties":{},"type":"object"})"};
      tools.push_back(std::move(remote));
    }
    cursor = outcome.result->optValue<std::string>("nextCursor", "");
    if (cursor.empty()) return tools;
  }
  return Status::error("tools/list: more than 100 pages (the server keeps returning nextCursor)");
}

tools::ToolResult Client::callTool(const std::string& tool, const std::string& arguments_json,
                                   const tools::CallContext& context) {
  auto arguments = tools::parseArguments(arguments_json);
  if (!arguments.isOk()) return {false, arguments.status().message()};
  Poco::JSON::Object::Ptr params = new Poco::JSON::Object;
  params->set("name", tool);
  params->set("arguments", arguments.value());
  auto outcome = request("tools/call", params, context.timeout, context.cancel);
  if (outcome.status.isOk()) return toToolResult(outcome.result);
  if (outcome.status.isCancelled()) return {false, "the call to " + tool + " was cancelled"};
  // The agent loop sets the call's timeout from TOOL_TIMEOUT_SECONDS: say which knob it was.
  const char* knob = outcome.timed_out ? " (TOOL_TIMEOUT_SECONDS)" : "";
  return {false, tool + " (server " + server_ + "): " + outcome.status.message() + knob};
}

Status Client::ping(std::chrono::milliseconds timeout) {
  auto outcome = request("ping", nullptr, timeout, nullptr);
  return outcome.status.isOk() ? Status::ok() : Status::retry("ping: " + outcome.status.message());
}

void Client::finish(std::int64_t id, Outcome outcome) {
  std::lock_guard lock(mutex_);
  auto found = pending_.find(id);
  if (found == pending_.end()) {
    log::debug("mcp_unknown_response_id", {{"server", server_}, {"id", std::to_string(id)}});
    return;
  }
  found->second->done = true;
  found->second->outcome = std::move(outcome);
  pending_.erase(found);
  answered_.notify_all();
}

void Client::failAll(const std::string& reason) {
  std::lock_guard lock(mutex_);
  for (auto& [id, pending] : pending_) {
    pending->done = true;
    pending->outcome = {Status::retry(reason), nullptr};
  }
  pending_.clear();
  answered_.notify_all();
}

void Client::onMessage(std::string_view text) {
  auto messages = jsonrpc::parse(text);
  if (!messages.isOk()) {
    log::warn("mcp_bad_message", {{"server", server_},
                                  {"error", messages.status().message().substr(0, 200)},
                                  {"line", std::string(text.substr(0, 200))}});
    return failMalformedAnswer(text, messages.status().message());
  }
  for (const auto& message : messages.value()) {
    using Kind = jsonrpc::Message::Kind;
    if (message.kind == Kind::kRequest) {
      handleServerRequest(message.id, message.method);
    } else if (message.kind == Kind::kNotification) {
      handleNotification(message.method);
    } else if (auto id = message.intId()) {
      finish(*id, message.kind == Kind::kResult
                      ? Outcome{Status::ok(), message.result}
                      : Outcome{Status::error(message.error_message + " (JSON-RPC error " +
                                              std::to_string(message.error_code) + ")"),
                                nullptr});
    } else {
      // Also a response without an id, as some servers send for a notification.
      log::debug("mcp_unknown_response_id",
                 {{"server", server_}, {"id", message.id.isEmpty() ? "" : message.id.toString()}});
    }
  }
}

// A line that is not JSON but names one of our calls' ids is that call's answer, broken: the
// call fails now rather than at the tool timeout. One with a "method" is a request of the
// server's (its ids are not ours); a line with no id at all is skipped noise.
void Client::failMalformedAnswer(std::string_view text, const std::string& error) {
  if (text.find("\"method\"") != std::string_view::npos) return;
  const auto id = jsonrpc::findResponseId(text);
  if (!id) return;
  finish(*id, {Status::error("the server answered this call with malformed JSON (" +
                             error.substr(0, 120) + ")"),
               nullptr});
}

void Client::handleServerRequest(const Poco::Dynamic::Var& id, const std::string& method) {
  // We declare no client capabilities (roots, sampling, elicitation), so only ping is ours.
  const auto reply =
      method == "ping" ? jsonrpc::response(id, nullptr)
                       : jsonrpc::errorResponse(id, kMethodNotFound, "method not found: " + method);
  auto status = transport_->send(reply, std::nullopt, std::chrono::milliseconds(10000));
  if (!status.isOk()) log::debug("mcp_reply_failed", {{"server", server_}, {"method", method}});
}

void Client::handleNotification(const std::string& method) {
  if (method == "notifications/tools/list_changed") {
    tools_list_changed_ = true;
    log::info("mcp_tools_list_changed", {{"server", server_}});
    if (callbacks_.tools_changed) callbacks_.tools_changed();
    return;
  }
  log::debug("mcp_notification", {{"server", server_}, {"method", method}});
}

void Client::onOversize(std::optional<std::int64_t> request_id, std::size_t length) {
  log::warn("mcp_message_too_large", {{"server", server_}, {"bytes", std::to_string(length)}});
  const std::string text = "the server's answer was " + std::to_string(length / 1024) +
                           " KB, over the 4 MB limit; ask for less (a smaller range or page)";
  if (request_id) return finish(*request_id, {Status::error(text), nullptr});
  std::optional<std::int64_t> only;
  {
    std::lock_guard lock(mutex_);
    if (pending_.size() == 1) only = pending_.begin()->first;
  }
  if (only) finish(*only, {Status::error(text), nullptr});
}

void Client::onRequestFailed(std::int64_t request_id, const Status& status) {
  finish(request_id, {status, nullptr});
}

void Client::onClosed(const std::string& reason) {
  {
    std::lock_guard lock(mutex_);
    close_reason_ = reason;
  }
  const bool was_closed = closed_.exchange(true);
  failAll("the server stopped while the call was running (" + reason +
          "); it is being restarted, try again shortly");
  if (!was_closed && callbacks_.closed) callbacks_.closed(reason);
}

void Client::close() {
  closed_ = true;
  transport_->close();
  failAll("the connection to the server was closed");
}

void Client::kill() {
  closed_ = true;
  transport_->kill();
  failAll("the server stopped answering and was restarted");
}

}  // namespace gantry::mcp
