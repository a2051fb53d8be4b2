#include "api/mcp_endpoint.h"

#include <Poco/JSON/Array.h>
#include <sys/random.h>

#include <algorithm>
#include <sstream>

#include "mcp/jsonrpc.h"

namespace gantry::api {
namespace {

using Poco::JSON::Object;
namespace rpc = mcp::jsonrpc;

constexpr std::size_t kMaxSessions = 256;

std::string randomHex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (getrandom(raw.data(), raw.size(), 0) != static_cast<ssize_t>(raw.size())) {
    throw std::runtime_error("no random bytes for a session id");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

McpReply rpcError(int status, int code, const std::string& message) {
  return {status, rpc::errorResponse({}, code, message), {}};
}

std::string text(const Object::Ptr& args, const std::string& key) {
  return args->has(key) && !args->isNull(key) ? args->get(key).convert<std::string>() : "";
}

/// run_task's arguments as a task: the id is the caller's or a fresh one, the digest covers
/// everything that makes it this task.
TaskRequest taskFrom(const Object::Ptr& args) {
  TaskRequest task;
  task.content = text(args, "content");
  if (task.content.empty()) throw std::invalid_argument("content is required");
  task.id = text(args, "id");
  if (task.id.empty()) task.id = "mcp-" + randomHex(8);
  std::ostringstream canonical;
  canonical << task.content;
  if (auto context = args->getArray("context")) {
    for (std::size_t i = 0; i < context->size(); ++i) {
      auto item = context->getObject(static_cast<unsigned>(i));
      if (!item) throw std::invalid_argument("context items must be objects");
      TaskContextItem entry{text(item, "author"), text(item, "content"), text(item, "timestamp")};
      canonical << '\n' << entry.author << '\t' << entry.timestamp << '\t' << entry.content;
      task.context.push_back(std::move(entry));
    }
  }
  task.body_digest = bodyDigest(canonical.str());
  task.reply_to_chat = text(args, "reply") != "none";
  return task;
}

Object::Ptr contextSchema() {
  Object::Ptr item = new Object;
  item->set("type", "object");
  Object::Ptr fields = new Object;
  for (const char* key : {"author", "content", "timestamp"}) {
    fields->set(key, mcp::property("string", std::string("the message's ") + key));
  }
  item->set("properties", fields);
  Object::Ptr list = new Object;
  list->set("type", "array");
  list->set("description", "messages the task is about, passed as untrusted data");
  list->set("items", item);
  return list;
}

}  // namespace

McpEndpoint::McpEndpoint(TaskService& tasks,
                         const std::function<Status(const std::string&)>& notify,
                         const std::function<std::string()>& status)
    : server_("gantry", GANTRY_VERSION) {
  Object::Ptr notify_props = new Object;
  notify_props->set("text", mcp::property("string", "the message for the owner"));
  server_.add({"notify_owner", "Sends a message to the owner's chat.",
               mcp::objectSchema(notify_props, {"text"}), [notify](const Object::Ptr& args) {
                 std::string message = text(args, "text");
                 if (message.empty()) return mcp::ServerToolResult::error("text is required");
                 Status sent = notify(message);
                 return sent.isOk() ? mcp::ServerToolResult::ok("delivered")
                                    : mcp::ServerToolResult::error(sent.message());
               }});
  Object::Ptr task_props = new Object;
  task_props->set("content", mcp::property("string", "what to do"));
  task_props->set("context", contextSchema());
  task_props->set("id", mcp::property("string", "an id that makes a retry run it only once"));
  task_props->set("reply", mcp::property("string", "\"none\": do not send the reply to the chat"));
  server_.add({"run_task",
               "Runs a task as one agent turn of its own (no chat history) within the step and "
               "time budgets, and returns its result.",
               mcp::objectSchema(task_props, {"content"}), [&tasks](const Object::Ptr& args) {
                 TaskOutcome outcome = tasks.run(taskFrom(args));
                 if (outcome.http_status != 200) return mcp::ServerToolResult::error(outcome.error);
                 Object out;
                 out.set("id", outcome.row.id);
                 out.set("status", outcome.row.status);
                 out.set("reply", outcome.row.reply);
                 out.set("steps", outcome.row.steps);
                 out.set("ms", outcome.row.ms);
                 std::ostringstream json;
                 out.stringify(json);
                 return mcp::ServerToolResult{json.str(), outcome.row.status == "failed"};
               }});
  server_.add({"get_status", "The instance's status: model, channel, uptime, tools, tasks.",
               mcp::objectSchema(new Object, {}),
               [status](const Object::Ptr&) { return mcp::ServerToolResult::ok(status()); }});
}

McpReply McpEndpoint::handle(const McpRequest& request) {
  if (request.method == "POST") return post(request);
  if (request.method == "DELETE") {
    std::lock_guard lock(mutex_);
    auto found = std::find(sessions_.begin(), sessions_.end(), request.session);
    if (request.session.empty() || found == sessions_.end()) {
      return rpcError(404, -32001, "unknown session");
    }
    sessions_.erase(found);
    return {200, "", {}};
  }
  // No server-initiated messages, hence no stream to offer.
  return {405,
          rpc::errorResponse({}, -32000, "use POST (this server opens no SSE stream)"),
          {{"Allow", "POST, DELETE"}}};
}

McpReply McpEndpoint::post(const McpRequest& request) {
  auto parsed = rpc::parse(request.body);
  if (!parsed.isOk()) return rpcError(400, -32700, parsed.status().message());
  if (parsed->size() != 1) return rpcError(400, -32600, "batches are not supported");
  const rpc::Message& message = parsed->front();
  const bool initialize =
      message.kind == rpc::Message::Kind::kRequest && message.method == "initialize";
  if (!initialize) {
    {
      std::lock_guard lock(mutex_);
      if (request.session.empty()) return rpcError(400, -32000, "Mcp-Session-Id is required");
      if (std::find(sessions_.begin(), sessions_.end(), request.session) == sessions_.end()) {
        return rpcError(404, -32001, "unknown session");
      }
    }
    if (!request.protocol_version.empty() &&
        mcp::ToolServer::negotiate(request.protocol_version) != request.protocol_version) {
      return rpcError(400, -32000, "unsupported MCP-Protocol-Version " + request.protocol_version);
    }
  }
  auto answer = server_.handle(request.body);
  if (!answer) return {202, "", {}};  // a notification or a response: accepted
  McpReply reply{200, *answer, {{"Content-Type", "application/json"}}};
  if (initialize) {
    std::string session = randomHex(16);
    std::lock_guard lock(mutex_);
    sessions_.push_back(session);
    if (sessions_.size() > kMaxSessions) sessions_.pop_front();  // the oldest is forgotten
    reply.headers["Mcp-Session-Id"] = session;
  }
  return reply;
}

}  // namespace gantry::api
