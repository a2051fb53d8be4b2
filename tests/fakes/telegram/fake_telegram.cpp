#include "fake_telegram.h"

#include <Poco/Base64Decoder.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>

#include <sstream>

#include "fake_telegram_internal.h"
#include "fakes/stop_promptly.h"

namespace gantry::fakes {
namespace {

using Poco::JSON::Object;
using Poco::Net::HTTPResponse;

class Handler final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Handler(FakeTelegram& fake) : fake_(fake) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    fake_.handle(request, response);
  }

 private:
  FakeTelegram& fake_;
};

class Factory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(FakeTelegram& fake) : fake_(fake) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new Handler(fake_);
  }

 private:
  FakeTelegram& fake_;
};

std::string readBody(Poco::Net::HTTPServerRequest& request) {
  std::string body;
  Poco::StreamCopier::copyToString(request.stream(), body);
  return body;
}

std::string fromBase64(const std::string& text) {
  std::istringstream in(text);
  Poco::Base64Decoder decoder(in);
  std::string bytes;
  Poco::StreamCopier::copyToString(decoder, bytes);
  return bytes;
}

std::string privateMessage(std::int64_t message_id, std::int64_t user_id,
                           const std::string& chat_type) {
  std::ostringstream out;
  out << "{\"message_id\":" << message_id << ",\"date\":1700000000,\"from\":{\"id\":" << user_id
      << ",\"is_bot\":false,\"first_name\":\"User" << user_id
      << "\"},\"chat\":{\"id\":" << (chat_type == "private" ? user_id : -user_id) << ",\"type\":\""
      << chat_type << "\"}";
  return out.str();
}

}  // namespace

FakeTelegram::FakeTelegram(std::string token) : token_(std::move(token)) {}

FakeTelegram::~FakeTelegram() { stop(); }

void FakeTelegram::start() {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  port_ = socket.address().port();
  auto* params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(32);
  params->setKeepAlive(true);
  server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), pool_, socket, params);
  server_->start();
}

void FakeTelegram::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || !server_) return;
    stopping_ = true;
  }
  changed_.notify_all();
  gantry::testing::wakeAcceptLoop(*server_);
  server_->stopAll(true);
  pool_.joinAll();
}

std::string FakeTelegram::apiBase() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::int64_t FakeTelegram::enqueueUpdate(const std::string& update_json) {
  Poco::JSON::Parser parser;
  Object::Ptr update = parser.parse(update_json).extract<Object::Ptr>();
  std::int64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    id = next_update_id_++;
    update->set("update_id", id);
    std::ostringstream out;
    update->stringify(out);
    updates_.emplace_back(id, out.str());
  }
  changed_.notify_all();
  return id;
}

std::int64_t FakeTelegram::enqueueText(std::int64_t user_id, const std::string& text,
                                       const std::string& chat_type) {
  Object message;
  std::int64_t message_id = 0;
  {
    std::lock_guard lock(mutex_);
    message_id = next_message_id_++;
  }
  std::string json = privateMessage(message_id, user_id, chat_type);
  Poco::JSON::Parser parser;
  Object::Ptr parsed = parser.parse(json + "}").extract<Object::Ptr>();
  parsed->set("text", text);
  Object update;
  update.set("message", parsed);
  std::ostringstream out;
  update.stringify(out);
  return enqueueUpdate(out.str());
}

std::int64_t FakeTelegram::enqueuePhoto(std::int64_t user_id, const std::string& file_id,
                                        const std::string& caption) {
  std::int64_t message_id = 0;
  std::size_t size = 0;
  {
    std::lock_guard lock(mutex_);
    message_id = next_message_id_++;
    auto it = files_.find(file_id);
    if (it != files_.end()) size = it->second.second.size();
  }
  Poco::JSON::Parser parser;
  Object::Ptr message =
      parser.parse(privateMessage(message_id, user_id, "private") + "}").extract<Object::Ptr>();
  Poco::JSON::Array::Ptr sizes = new Poco::JSON::Array;
  for (int scale : {1, 4, 16}) {
    Object::Ptr photo = new Object;
    // Smaller sizes are distinct thumbnails; only the largest is the registered file.
    photo->set("file_id", scale == 16 ? file_id : file_id + "_thumb" + std::to_string(scale));
    photo->set("file_unique_id", file_id + std::to_string(scale));
    photo->set("width", 80 * scale);
    photo->set("height", 60 * scale);
    photo->set("file_size", static_cast<Poco::UInt64>(scale == 16 ? size : size / 16));
    sizes->add(photo);
  }
  message->set("photo", sizes);
  if (!caption.empty()) message->set("caption", caption);
  Object update;
  update.set("message", message);
  std::ostringstream out;
  update.stringify(out);
  return enqueueUpdate(out.str());
}

void FakeTelegram::addFile(const std::string& file_id, const std::string& file_path,
                           std::string bytes) {
  std::lock_guard lock(mutex_);
  files_[file_id] = {file_path, std::move(bytes)};
}

void FakeTelegram::addFault(Fault fault) {
  std::lock_guard lock(mutex_);
  faults_.push_back(std::move(fault));
}

void FakeTelegram::setSendLatency(std::chrono::milliseconds latency) {
  std::lock_guard lock(mutex_);
  send_latency_ = latency;
}

void FakeTelegram::setHoldPolls(bool hold) {
  std::lock_guard lock(mutex_);
  hold_polls_ = hold;
}

std::vector<SentRecord> FakeTelegram::sent() const {
  std::lock_guard lock(mutex_);
  return sent_;
}

std::vector<SentRecord> FakeTelegram::sent(const std::string& method) const {
  std::vector<SentRecord> out;
  for (auto& record : sent()) {
    if (record.method == method) out.push_back(record);
  }
  return out;
}

bool FakeTelegram::waitSent(std::size_t n, const std::string& method,
                            std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] {
    std::size_t count = 0;
    for (auto& record : sent_) count += method.empty() || record.method == method;
    return count >= n;
  });
}

std::string FakeTelegram::waitText(const std::string& needle, int nth,
                                   std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  std::string found;
  changed_.wait_for(lock, timeout, [&] {
    int seen = 0;
    for (auto& record : sent_) {
      if (record.text.find(needle) != std::string::npos && ++seen == nth) {
        found = record.text;
        return true;
      }
    }
    return false;
  });
  return found;
}

int FakeTelegram::calls(const std::string& method) const {
  std::lock_guard lock(mutex_);
  auto it = calls_.find(method);
  return it == calls_.end() ? 0 : it->second;
}

bool FakeTelegram::waitCalls(const std::string& method, int n,
                             std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] {
    auto it = calls_.find(method);
    return it != calls_.end() && it->second >= n;
  });
}

bool FakeTelegram::waitPolling(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return polls_waiting_ > 0; });
}

std::int64_t FakeTelegram::confirmedOffset() const {
  std::lock_guard lock(mutex_);
  return confirmed_;
}

std::string FakeTelegram::sentJson() const {
  Poco::JSON::Array array;
  for (const auto& record : sent()) {
    Object::Ptr item = new Object;
    item->set("method", record.method);
    item->set("chat_id", record.chat_id);
    item->set("message_id", record.message_id);
    item->set("text", record.text);
    item->set("parse_mode", record.parse_mode);
    item->set("photo", record.photo);
    item->set("photo_bytes", static_cast<Poco::UInt64>(record.photo_bytes));
    array.add(item);
  }
  std::ostringstream out;
  array.stringify(out);
  return out.str();
}

void FakeTelegram::record(SentRecord record) {
  {
    std::lock_guard lock(mutex_);
    sent_.push_back(std::move(record));
  }
  changed_.notify_all();
}

void FakeTelegram::handle(Poco::Net::HTTPServerRequest& request,
                          Poco::Net::HTTPServerResponse& response) {
  try {
    std::string path = Poco::URI(request.getURI()).getPath();
    if (path.rfind("/control/", 0) == 0) {
      handleControl(path, request, response);
    } else if (path.rfind("/file/bot", 0) == 0) {
      handleFile(path, response);
    } else if (path.rfind("/bot", 0) == 0) {
      handleBot(path, request, response);
    } else {
      sendJson(response, 404, errorJson(404, "Not Found", 0));
    }
  } catch (const std::exception& e) {
    if (!response.sent()) sendJson(response, 500, errorJson(500, e.what(), 0));
  }
}

void FakeTelegram::handleFile(const std::string& path, Poco::Net::HTTPServerResponse& response) {
  std::string rest = path.substr(std::string("/file/bot").size());
  auto slash = rest.find('/');
  if (slash == std::string::npos || rest.substr(0, slash) != token_) {
    return sendJson(response, 401, errorJson(401, "Unauthorized", 0));
  }
  std::string file_path = rest.substr(slash + 1);
  std::string bytes;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, file] : files_) {
      if (file.first == file_path) bytes = file.second;
    }
    if (bytes.empty()) return sendJson(response, 404, errorJson(404, "Not Found", 0));
  }
  response.setContentType("application/octet-stream");
  response.setContentLength(static_cast<std::streamsize>(bytes.size()));
  response.send() << bytes;
}

void FakeTelegram::handleBot(const std::string& path, Poco::Net::HTTPServerRequest& request,
                             Poco::Net::HTTPServerResponse& response) {
  std::string rest = path.substr(4);
  auto slash = rest.find('/');
  std::string token = rest.substr(0, slash);
  std::string method = slash == std::string::npos ? "" : rest.substr(slash + 1);
  {
    std::lock_guard lock(mutex_);
    ++calls_[method];
  }
  changed_.notify_all();
  // The body is read first so a kept-alive connection stays in step whatever the reply.
  BotParams params = readParams(request);
  if (token != token_) return sendJson(response, 401, errorJson(401, "Unauthorized", 0));
  Fault fault;
  bool faulted = takeFault(method, &fault);
  if (faulted && fault.hang_ms > 0) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::milliseconds(fault.hang_ms), [this] { return stopping_; });
    faulted = fault.drop;  // a hang then a drop: the connection ends mid-poll
  }
  if (faulted) {
    if (fault.drop) {
      // No reply at all: the client sees the connection end.
      static_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket().shutdown();
      return;
    }
    return sendJson(response, fault.status,
                    errorJson(fault.status, fault.description, fault.retry_after));
  }
  int status = 200;
  bool send = method == "sendMessage";
  if (send) sleepLatency();  // on the way in: a kill now means the message never arrives
  std::string body = dispatch(method, params, &status);
  if (send) sleepLatency();  // on the way back: a kill now means it arrived, unconfirmed
  sendJson(response, status, body);
}

void FakeTelegram::sleepLatency() {
  std::unique_lock lock(mutex_);
  auto half = send_latency_ / 2;
  changed_.wait_for(lock, half, [this] { return stopping_; });
}

bool FakeTelegram::takeFault(const std::string& method, Fault* fault) {
  std::lock_guard lock(mutex_);
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (!it->method.empty() && it->method != method) continue;
    *fault = *it;
    if (fault->description.empty()) fault->description = defaultDescription(fault->status);
    if (fault->status == 429 && fault->retry_after > 0 && it->description.empty()) {
      fault->description += ": retry after " + std::to_string(fault->retry_after);
    }
    if (--it->count <= 0) faults_.erase(it);
    return true;
  }
  return false;
}

void FakeTelegram::handleControl(const std::string& path, Poco::Net::HTTPServerRequest& request,
                                 Poco::Net::HTTPServerResponse& response) {
  Poco::JSON::Parser parser;
  if (path == "/control/sent") return sendJson(response, 200, sentJson());
  if (path == "/control/state") {
    std::ostringstream out;
    out << "{\"confirmed_offset\":" << confirmedOffset()
        << ",\"getUpdates\":" << calls("getUpdates") << "}";
    return sendJson(response, 200, out.str());
  }
  Object::Ptr body = parser.parse(readBody(request)).extract<Object::Ptr>();
  if (path == "/control/updates") {
    std::ostringstream update;
    body->stringify(update);
    return sendJson(response, 200,
                    "{\"update_id\":" + std::to_string(enqueueUpdate(update.str())) + "}");
  }
  if (path == "/control/fail") {
    Fault fault;
    fault.method = body->optValue<std::string>("method", "");
    fault.status = body->optValue<int>("status", 500);
    fault.description = body->optValue<std::string>("description", "");
    fault.retry_after = body->optValue<int>("retry_after", 0);
    fault.drop = body->optValue<bool>("drop", false);
    fault.count = body->optValue<int>("count", 1);
    fault.hang_ms = body->optValue<int>("hang_ms", 0);
    addFault(fault);
    return sendJson(response, 200, "{\"ok\":true}");
  }
  if (path == "/control/files") {
    addFile(body->optValue<std::string>("file_id", ""),
            body->optValue<std::string>("file_path", ""),
            fromBase64(body->optValue<std::string>("data_base64", "")));
    return sendJson(response, 200, "{\"ok\":true}");
  }
  sendJson(response, 404, errorJson(404, "Not Found", 0));
}

}  // namespace gantry::fakes
