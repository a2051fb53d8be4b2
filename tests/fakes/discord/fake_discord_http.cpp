// FakeDiscord's HTTP side: the REST routes the channel uses, the CDN stand-in and the
// /control/... endpoints.

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTMLForm.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/MessageHeader.h>
#include <Poco/Net/PartHandler.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>

#include <cmath>
#include <sstream>

#include "fake_discord.h"

namespace gantry::testing {
namespace {

using Poco::JSON::Object;
using Poco::Net::HTTPResponse;
using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

void reply(HTTPServerResponse& response, HTTPResponse::HTTPStatus status, const std::string& body) {
  response.setStatus(status);
  if (body.empty()) {
    response.setContentLength(0);
    response.send();
    return;
  }
  response.setContentType("application/json");
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.send() << body;
}

void error(HTTPServerResponse& response, HTTPResponse::HTTPStatus status, int code,
           const std::string& message) {
  reply(response, status,
        "{\"message\":\"" + message + "\",\"code\":" + std::to_string(code) + "}");
}

std::string readBody(HTTPServerRequest& request) {
  std::string body;
  Poco::StreamCopier::copyToString(request.stream(), body);
  return body;
}

std::size_t utf8Length(const std::string& text) {
  std::size_t count = 0;
  for (char c : text) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return count;
}

std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> out;
  Poco::URI(path).getPathSegments(out);
  return out;
}

// Collects the file part of a multipart upload.
class FilePart final : public Poco::Net::PartHandler {
 public:
  void handlePart(const Poco::Net::MessageHeader& header, std::istream& stream) override {
    Poco::StreamCopier::copyToString(stream, bytes);
    type = header.get("Content-Type", "");
  }
  std::string bytes;
  std::string type;
};

std::string str(const Object::Ptr& object, const std::string& key, const std::string& fallback) {
  return object->has(key) ? object->getValue<std::string>(key) : fallback;
}

}  // namespace

void FakeDiscord::handleRest(HTTPServerRequest& request, HTTPServerResponse& response) {
  std::vector<std::string> parts = segments(request.getURI());
  if (parts.size() < 2 || parts[0] != "api" || parts[1] != "v10") {
    return error(response, HTTPResponse::HTTP_NOT_FOUND, 0, "404: Not Found");
  }
  if (request.get("Authorization", "") != "Bot " + options_.token) {
    return error(response, HTTPResponse::HTTP_UNAUTHORIZED, 0, "401: Unauthorized");
  }
  parts.erase(parts.begin(), parts.begin() + 2);
  const std::string& method = request.getMethod();
  if (method == "GET" && parts == std::vector<std::string>{"gateway", "bot"}) {
    return reply(response, HTTPResponse::HTTP_OK,
                 "{\"url\":\"ws://127.0.0.1:" + std::to_string(port()) +
                     "\",\"shards\":1,\"session_start_limit\":{\"total\":1000,\"remaining\":"
                     "999,\"reset_after\":14400000,\"max_concurrency\":1}}");
  }
  if (parts.size() >= 3 && parts[0] == "channels") {
    const std::string& channel = parts[1];
    if (method == "POST" && parts.size() == 3 && parts[2] == "typing") {
      if (!rateLimit("POST typing " + channel, response)) return;
      std::lock_guard lock(mutex_);
      ++stats_.typing;
      changed();
      return reply(response, HTTPResponse::HTTP_NO_CONTENT, "");
    }
    if (method == "POST" && parts.size() == 3 && parts[2] == "messages") {
      if (!rateLimit("POST messages " + channel, response)) return;
      return createMessage(channel, request, response);
    }
    if (method == "PATCH" && parts.size() == 4 && parts[2] == "messages") {
      if (!rateLimit("PATCH messages " + channel, response)) return;
      return editMessage(channel, parts[3], request, response);
    }
  }
  error(response, HTTPResponse::HTTP_NOT_FOUND, 0, "404: Not Found");
}

// Applies the scripted 429s and the bucket window; false when a 429 was sent.
bool FakeDiscord::rateLimit(const std::string& bucket_name, HTTPServerResponse& response) {
  std::lock_guard lock(mutex_);
  auto now = std::chrono::steady_clock::now();
  Bucket& bucket = buckets_[bucket_name];
  if (now >= bucket.reset) {
    bucket.used = 0;
    bucket.reset =
        now + std::chrono::milliseconds(static_cast<std::int64_t>(options_.bucket_window_s * 1000));
  }
  double reset_after = std::chrono::duration<double>(bucket.reset - now).count();
  bool scripted = scripted_429_ > 0;
  bool exhausted = bucket.used >= options_.bucket_limit;
  response.set(
      "X-RateLimit-Bucket",
      std::to_string(std::hash<std::string>{}(bucket_name.substr(0, bucket_name.rfind(' ')))));
  response.set("X-RateLimit-Limit", std::to_string(options_.bucket_limit));
  if (scripted || exhausted) {
    double retry_after = scripted ? scripted_retry_after_ : reset_after;
    bool global = scripted && scripted_global_;
    if (scripted) --scripted_429_;
    if (!scripted) ++stats_.bucket_violations;
    ++stats_.rate_limited;
    changed();
    response.set("X-RateLimit-Remaining", "0");
    response.set("X-RateLimit-Reset-After", std::to_string(retry_after));
    response.set("Retry-After", std::to_string(static_cast<int>(std::ceil(retry_after))));
    response.set("X-RateLimit-Scope", global ? "global" : "user");
    if (global) response.set("X-RateLimit-Global", "true");
    std::ostringstream body;
    body << "{\"message\":\"You are being rate limited.\",\"retry_after\":" << retry_after
         << ",\"global\":" << (global ? "true" : "false") << "}";
    reply(response, HTTPResponse::HTTP_TOO_MANY_REQUESTS, body.str());
    return false;
  }
  ++bucket.used;
  response.set("X-RateLimit-Remaining", std::to_string(options_.bucket_limit - bucket.used));
  response.set("X-RateLimit-Reset-After", std::to_string(reset_after));
  return true;
}

void FakeDiscord::createMessage(const std::string& channel_id, HTTPServerRequest& request,
                                HTTPServerResponse& response) {
  Sent message;
  message.channel_id = channel_id;
  FilePart file;
  if (request.getContentType().rfind("multipart/form-data", 0) == 0) {
    Poco::Net::HTMLForm form(request, request.stream(), file);
    message.body = form.get("payload_json", "");
    message.upload = !file.bytes.empty();
  } else {
    message.body = readBody(request);
  }
  Object::Ptr body;
  try {
    body = Poco::JSON::Parser().parse(message.body).extract<Object::Ptr>();
  } catch (const Poco::Exception&) {
    return error(response, HTTPResponse::HTTP_BAD_REQUEST, 50109,
                 "The request body contains invalid JSON.");
  }
  message.content = str(body, "content", "");
  if (utf8Length(message.content) > 2000) {
    return error(response, HTTPResponse::HTTP_BAD_REQUEST, 50035, "Invalid Form Body");
  }
  if (message.content.empty() && !body->has("embeds") && !message.upload) {
    return error(response, HTTPResponse::HTTP_BAD_REQUEST, 50006, "Cannot send an empty message");
  }
  std::lock_guard lock(mutex_);
  message.id = std::to_string(next_id_++);
  sent_.push_back(message);
  changed();
  reply(response, HTTPResponse::HTTP_OK, messageJson(message));
}

void FakeDiscord::editMessage(const std::string& channel_id, const std::string& message_id,
                              HTTPServerRequest& request, HTTPServerResponse& response) {
  std::string text = readBody(request);
  Object::Ptr body = Poco::JSON::Parser().parse(text).extract<Object::Ptr>();
  std::lock_guard lock(mutex_);
  for (Sent& message : sent_) {
    if (message.id != message_id || message.channel_id != channel_id) continue;
    std::string content = str(body, "content", message.content);
    if (utf8Length(content) > 2000) {
      return error(response, HTTPResponse::HTTP_BAD_REQUEST, 50035, "Invalid Form Body");
    }
    message.content = content;
    message.body = text;
    ++message.edits;
    changed();
    return reply(response, HTTPResponse::HTTP_OK, messageJson(message));
  }
  error(response, HTTPResponse::HTTP_NOT_FOUND, 10008, "Unknown Message");
}

std::string FakeDiscord::messageJson(const Sent& message) const {
  Object::Ptr author = new Object;
  author->set("id", options_.bot_user_id);
  author->set("username", "gantry-bot");
  author->set("bot", true);
  Object::Ptr object = new Object;
  object->set("id", message.id);
  object->set("type", 0);
  object->set("channel_id", message.channel_id);
  object->set("content", message.content);
  object->set("author", author);
  object->set("attachments", Poco::JSON::Array());
  object->set("timestamp", "2026-11-30T22:00:00.000000+00:00");
  std::ostringstream out;
  object->stringify(out);
  return out.str();
}

void FakeDiscord::handleAttachment(HTTPServerRequest& request, HTTPServerResponse& response) {
  std::vector<std::string> parts = segments(request.getURI());
  std::lock_guard lock(mutex_);
  auto found = parts.size() == 2 ? attachments_.find(parts[1]) : attachments_.end();
  if (found == attachments_.end()) return error(response, HTTPResponse::HTTP_NOT_FOUND, 0, "");
  response.setContentType("image/png");
  response.setContentLength(static_cast<std::streamsize>(found->second.size()));
  response.send() << found->second;
}

void FakeDiscord::handleControl(HTTPServerRequest& request, HTTPServerResponse& response) {
  Poco::URI uri(request.getURI());
  std::map<std::string, std::string> query;
  for (const auto& [key, value] : uri.getQueryParameters()) query[key] = value;
  const std::string name = uri.getPath().substr(9);
  if (name == "dispatch") {
    Object::Ptr body = Poco::JSON::Parser().parse(readBody(request)).extract<Object::Ptr>();
    MessageSpec spec;
    spec.author_id = str(body, "author_id", "");
    spec.author_name = str(body, "author_name", spec.author_name);
    spec.content = str(body, "content", "");
    spec.channel_id = str(body, "channel_id", spec.channel_id);
    spec.guild_id = str(body, "guild_id", "");
    spec.bot = body->has("bot") && body->getValue<bool>("bot");
    std::string id = dispatch(spec);
    if (id.empty()) return error(response, HTTPResponse::HTTP_CONFLICT, 0, "no session yet");
    return reply(response, HTTPResponse::HTTP_OK, "{\"id\":\"" + id + "\"}");
  }
  if (name == "messages") {
    Poco::JSON::Array list;
    for (const Sent& message : sent()) {
      Object::Ptr item = new Object;
      item->set("id", message.id);
      item->set("channel_id", message.channel_id);
      item->set("content", message.content);
      item->set("edits", message.edits);
      list.add(item);
    }
    std::ostringstream out;
    list.stringify(out);
    return reply(response, HTTPResponse::HTTP_OK, out.str());
  }
  if (name == "stats") {
    Stats now = stats();
    Object object;
    object.set("connections", now.connections);
    object.set("identifies", now.identifies);
    object.set("resumes", now.resumes);
    object.set("heartbeats", now.heartbeats);
    object.set("rate_limited", now.rate_limited);
    object.set("bucket_violations", now.bucket_violations);
    object.set("ready", now.ready);
    std::ostringstream out;
    object.stringify(out);
    return reply(response, HTTPResponse::HTTP_OK, out.str());
  }
  if (name == "reconnect") {
    reconnect();
  } else if (name == "heartbeat") {
    requestHeartbeat();
  } else if (name == "invalid-session") {
    invalidSession(query["resumable"] == "1");
  } else if (name == "close") {
    closeWith(std::stoi(query.count("code") ? query["code"] : "4000"));
  } else if (name == "withhold-acks") {
    withholdAcks(query["on"] != "0");
  } else if (name == "rate-limit") {
    rateLimitNext(std::stoi(query.count("count") ? query["count"] : "1"),
                  std::stod(query.count("retry_after") ? query["retry_after"] : "0.5"),
                  query["global"] == "1");
  } else {
    return error(response, HTTPResponse::HTTP_NOT_FOUND, 0, "unknown control");
  }
  reply(response, HTTPResponse::HTTP_OK, "{}");
}

}  // namespace gantry::testing
