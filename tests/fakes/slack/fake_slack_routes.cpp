// FakeSlack: Web API methods, private files and the /control/ routes.

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTMLForm.h>
#include <Poco/StreamCopier.h>

#include <cstdio>
#include <sstream>

#include "fake_slack_impl.h"

namespace gantry::fakes {
namespace {

using Poco::JSON::Object;
using Poco::Net::HTTPResponse;
using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

Object::Ptr failure(const std::string& error) {
  Object::Ptr reply = new Object;
  reply->set("ok", false);
  reply->set("error", error);
  return reply;
}

void sendJson(HTTPServerResponse& response, const Object& body, int status = 200) {
  response.setStatus(static_cast<HTTPResponse::HTTPStatus>(status));
  response.setContentType("application/json; charset=utf-8");
  std::ostringstream out;
  body.stringify(out);
  response.setContentLength(static_cast<std::streamsize>(out.str().size()));
  response.send() << out.str();
}

// Request parameters from a JSON body or a form body.
Object::Ptr readParams(HTTPServerRequest& request) {
  if (request.getContentType().rfind("application/json", 0) == 0) {
    std::string body;
    Poco::StreamCopier::copyToString(request.stream(), body);
    try {
      Poco::JSON::Parser parser;
      return parser.parse(body).extract<Object::Ptr>();
    } catch (const Poco::Exception&) {
      return nullptr;
    }
  }
  Poco::Net::HTMLForm form(request, request.stream());
  Object::Ptr params = new Object;
  for (const auto& [name, value] : form) params->set(name, value);
  return params;
}

std::string bearerToken(const HTTPServerRequest& request, const Object::Ptr& params) {
  auto header = request.get("Authorization", "");
  if (header.rfind("Bearer ", 0) == 0) return header.substr(7);
  return params ? params->optValue<std::string>("token", "") : "";
}

std::string param(const Object::Ptr& params, const std::string& name) {
  if (!params || !params->has(name)) return "";
  auto value = params->get(name);
  return value.isString() ? value.extract<std::string>() : value.toString();
}

// The event a test posts to /control/event.
FakeSlack::Event eventFrom(const Object::Ptr& params) {
  FakeSlack::Event event;
  event.user = param(params, "user");
  event.text = param(params, "text");
  event.channel = param(params, "channel");
  if (params->has("channel_type")) event.channel_type = param(params, "channel_type");
  event.subtype = param(params, "subtype");
  event.bot_id = param(params, "bot_id");
  if (params->has("deliveries")) event.deliveries = params->getValue<int>("deliveries");
  return event;
}

}  // namespace

void FakeSlack::Impl::serveApi(const std::string& method, HTTPServerRequest& request,
                               HTTPServerResponse& response) {
  if (request.getMethod() != "POST") return sendJson(response, *failure("invalid_request"));
  auto params = readParams(request);
  if (!params) return sendJson(response, *failure("invalid_json"));
  std::unique_lock lock(mutex_);
  ++stats_.calls[method];
  auto& script = scripts_[method];
  if (!script.empty()) {
    auto next = script.front();
    script.pop_front();
    lock.unlock();
    if (next.http_status == 429) response.set("Retry-After", std::to_string(next.retry_after));
    auto error = next.http_status == 429 ? std::string("ratelimited") : next.error;
    return sendJson(response, *failure(error), next.http_status);
  }
  auto reply = apiCall(method, bearerToken(request, params), params);
  lock.unlock();
  sendJson(response, *reply);
}

// One Web API method; called with mutex_ held.
Object::Ptr FakeSlack::Impl::apiCall(const std::string& method, const std::string& token,
                                     const Object::Ptr& params) {
  if (token.empty()) return failure("not_authed");
  bool app = token == options_.app_token;
  bool bot = token == options_.bot_token;
  if (!app && !bot) return failure("invalid_auth");
  if (method == "apps.connections.open") {
    if (!app) return failure("not_allowed_token_type");
    ++stats_.connections_opened;
    Object::Ptr reply = new Object;
    reply->set("ok", true);
    reply->set("url", "ws://127.0.0.1:" + std::to_string(port_) +
                          "/link/?ticket=" + std::to_string(next_id_++) + "&app_id=A0FAKE");
    return reply;
  }
  if (!bot) return failure("not_allowed_token_type");
  if (method == "auth.test") {
    Object::Ptr reply = new Object;
    reply->set("ok", true);
    reply->set("url", "https://fake.slack.com/");
    reply->set("team", "Fake Team");
    reply->set("user", "gantry");
    reply->set("team_id", "T0FAKE");
    reply->set("user_id", options_.bot_user_id);
    reply->set("bot_id", "B0FAKE");
    return reply;
  }
  if (method == "chat.postMessage") return postMessage(params);
  if (method == "chat.update") return updateMessage(params);
  return failure("unknown_method");
}

Object::Ptr FakeSlack::Impl::postMessage(const Object::Ptr& params) {
  auto channel = param(params, "channel");
  auto text = param(params, "text");
  bool blocks = params->has("blocks");
  if (channel.empty()) return failure("channel_not_found");
  if (!channels_.contains(channel)) return failure("channel_not_found");
  if (text.empty() && !blocks) return failure("no_text");
  if (text.size() > options_.max_text_chars) return failure("msg_too_long");
  char ts[32];
  std::snprintf(ts, sizeof ts, "1800000000.%06d", next_id_++);
  messages_.push_back({channel, ts, text, {}, blocks});
  Object::Ptr message = new Object;
  message->set("type", "message");
  message->set("text", text);
  message->set("user", options_.bot_user_id);
  message->set("bot_id", "B0FAKE");
  message->set("ts", std::string(ts));
  Object::Ptr reply = new Object;
  reply->set("ok", true);
  reply->set("channel", channel);
  reply->set("ts", std::string(ts));
  reply->set("message", message);
  return reply;
}

Object::Ptr FakeSlack::Impl::updateMessage(const Object::Ptr& params) {
  auto channel = param(params, "channel");
  auto ts = param(params, "ts");
  auto text = param(params, "text");
  if (!channels_.contains(channel)) return failure("channel_not_found");
  if (text.empty()) return failure("no_text");
  if (text.size() > options_.max_text_chars) return failure("msg_too_long");
  for (auto& message : messages_) {
    if (message.channel != channel || message.ts != ts) continue;
    message.edits.push_back(text);
    Object::Ptr reply = new Object;
    reply->set("ok", true);
    reply->set("channel", channel);
    reply->set("ts", ts);
    reply->set("text", text);
    return reply;
  }
  return failure("message_not_found");
}

void FakeSlack::Impl::serveFile(const std::string& id, HTTPServerRequest& request,
                                HTTPServerResponse& response) {
  std::unique_lock lock(mutex_);
  auto it = files_.find(id);
  bool authorized = request.get("Authorization", "") == "Bearer " + options_.bot_token;
  if (!authorized || it == files_.end()) {
    lock.unlock();
    response.setStatus(authorized ? HTTPResponse::HTTP_NOT_FOUND : HTTPResponse::HTTP_FORBIDDEN);
    response.send() << "no such file";
    return;
  }
  auto file = it->second;
  lock.unlock();
  response.setContentType(file.mimetype);
  response.setContentLength(static_cast<std::streamsize>(file.bytes.size()));
  response.send() << file.bytes;
}

void FakeSlack::Impl::serveControl(const std::string& what, HTTPServerRequest& request,
                                   HTTPServerResponse& response) {
  auto params = readParams(request);
  if (!params) params = new Object;
  Object reply;
  reply.set("ok", true);
  if (what == "event") {
    reply.set("event_id", enqueue(eventFrom(params)));
  } else if (what == "disconnect") {
    disconnect(params->has("reason") ? param(params, "reason") : "refresh_requested");
  } else if (what == "drop") {
    std::lock_guard lock(mutex_);
    if (auto socket = newestSocket()) socket->drop = true;
  } else if (what == "script") {
    std::lock_guard lock(mutex_);
    int count = params->has("count") ? params->getValue<int>("count") : 1;
    for (int i = 0; i < count; ++i) {
      scripts_[param(params, "method")].push_back(
          {params->has("status") ? params->getValue<int>("status") : 200, param(params, "error"),
           params->has("retry_after") ? params->getValue<int>("retry_after") : 1});
    }
  } else if (what == "messages") {
    std::lock_guard lock(mutex_);
    Poco::JSON::Array list;
    for (const auto& message : messages_) {
      Object item;
      item.set("channel", message.channel);
      item.set("ts", message.ts);
      item.set("text", message.text);
      Poco::JSON::Array edits;
      for (const auto& edit : message.edits) edits.add(edit);
      item.set("edits", edits);
      list.add(item);
    }
    reply.set("messages", list);
  } else if (what == "stats") {
    std::lock_guard lock(mutex_);
    reply.set("connections_opened", stats_.connections_opened);
    reply.set("sockets_accepted", stats_.sockets_accepted);
    reply.set("live_sockets", stats_.live_sockets);
    reply.set("acks", stats_.acks);
    reply.set("deliveries", stats_.deliveries);
    int unacked = 0;
    for (const auto& envelope : envelopes_) unacked += envelope.acked ? 0 : 1;
    reply.set("unacked", unacked);
  } else {
    return sendJson(response, *failure("unknown_control"), 404);
  }
  sendJson(response, reply);
}

}  // namespace gantry::fakes
