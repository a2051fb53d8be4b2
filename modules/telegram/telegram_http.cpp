#include "telegram_http.h"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/StreamCopier.h>
#include <sys/socket.h>

#include <istream>
#include <mutex>
#include <ostream>

namespace gantry::telegram {
namespace {

using Poco::Net::HTTPRequest;
using Poco::Net::HTTPResponse;

Poco::Net::Context::Ptr clientContext() {
  static std::once_flag once;
  static Poco::Net::Context::Ptr context;
  std::call_once(once, [] {
    Poco::Net::initializeSSL();
    context = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", "",
                                     Poco::Net::Context::VERIFY_RELAXED, 9, true);
  });
  return context;
}

// Reads at most max_bytes of a body; false when it is longer.
bool readLimited(std::istream& in, std::size_t max_bytes, std::string* out) {
  char buffer[8192];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    out->append(buffer, static_cast<std::size_t>(in.gcount()));
    if (out->size() > max_bytes) return false;
  }
  return true;
}

HttpReply failure(std::string_view what, const std::string& detail) {
  return {0, "", std::string(what) + ": " + detail};
}

}  // namespace

void AbortSlot::abort() {
  std::lock_guard lock(mutex_);
  aborted_ = true;
  // shutdown(2), not close: the polling thread still owns the descriptor; this only wakes
  // its blocking read.
  if (session_ != nullptr && session_->socket().impl()->initialized()) {
    ::shutdown(session_->socket().impl()->sockfd(), SHUT_RDWR);
  }
}

bool AbortSlot::aborted() const {
  std::lock_guard lock(mutex_);
  return aborted_;
}

bool AbortSlot::attach(Poco::Net::HTTPClientSession* session) {
  std::lock_guard lock(mutex_);
  if (aborted_) return false;
  session_ = session;
  return true;
}

void AbortSlot::detach() {
  std::lock_guard lock(mutex_);
  session_ = nullptr;
}

BotHttp::BotHttp(const std::string& api_base, std::string token) : token_(std::move(token)) {
  try {
    base_ = Poco::URI(api_base);
    if (base_.getScheme() != "http" && base_.getScheme() != "https") base_ = Poco::URI();
  } catch (const Poco::Exception&) {
    base_ = Poco::URI();
  }
}

std::unique_ptr<Poco::Net::HTTPClientSession> BotHttp::open(int timeout_seconds) const {
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  if (base_.getScheme() == "https") {
    session = std::make_unique<Poco::Net::HTTPSClientSession>(base_.getHost(), base_.getPort(),
                                                              clientContext());
  } else {
    session = std::make_unique<Poco::Net::HTTPClientSession>(base_.getHost(), base_.getPort());
  }
  session->setTimeout(Poco::Timespan(10, 0), Poco::Timespan(timeout_seconds, 0),
                      Poco::Timespan(timeout_seconds, 0));
  return session;
}

std::string BotHttp::methodPath(std::string_view method) const {
  std::string path = base_.getPath();
  if (!path.empty() && path.back() == '/') path.pop_back();
  return path + "/bot" + token_ + "/" + std::string(method);
}

HttpReply BotHttp::postJson(std::string_view method, const std::string& json, int timeout_seconds,
                            AbortSlot* slot) {
  try {
    auto session = open(timeout_seconds);
    if (slot != nullptr && !slot->attach(session.get())) return failure(method, "stopped");
    HTTPRequest request(HTTPRequest::HTTP_POST, methodPath(method), HTTPRequest::HTTP_1_1);
    request.setContentType("application/json");
    request.setContentLength(static_cast<std::streamsize>(json.size()));
    HttpReply reply;
    try {
      session->sendRequest(request) << json;
      HTTPResponse response;
      std::istream& in = session->receiveResponse(response);
      reply.status = static_cast<int>(response.getStatus());
      Poco::StreamCopier::copyToString(in, reply.body);
    } catch (...) {
      if (slot != nullptr) slot->detach();
      throw;
    }
    if (slot != nullptr) slot->detach();
    return reply;
  } catch (const Poco::Exception& e) {
    return failure(method, e.displayText());
  } catch (const std::exception& e) {
    return failure(method, e.what());
  }
}

HttpReply BotHttp::postForm(std::string_view method, Poco::Net::HTMLForm& form,
                            int timeout_seconds) {
  try {
    auto session = open(timeout_seconds);
    HTTPRequest request(HTTPRequest::HTTP_POST, methodPath(method), HTTPRequest::HTTP_1_1);
    form.prepareSubmit(request);
    form.write(session->sendRequest(request));
    HTTPResponse response;
    std::istream& in = session->receiveResponse(response);
    HttpReply reply{static_cast<int>(response.getStatus()), "", ""};
    Poco::StreamCopier::copyToString(in, reply.body);
    return reply;
  } catch (const Poco::Exception& e) {
    return failure(method, e.displayText());
  } catch (const std::exception& e) {
    return failure(method, e.what());
  }
}

HttpReply BotHttp::download(const std::string& file_path, std::size_t max_bytes,
                            int timeout_seconds) {
  try {
    auto session = open(timeout_seconds);
    std::string path = base_.getPath();
    if (!path.empty() && path.back() == '/') path.pop_back();
    HTTPRequest request(HTTPRequest::HTTP_GET, path + "/file/bot" + token_ + "/" + file_path,
                        HTTPRequest::HTTP_1_1);
    session->sendRequest(request);
    HTTPResponse response;
    std::istream& in = session->receiveResponse(response);
    HttpReply reply{static_cast<int>(response.getStatus()), "", ""};
    if (response.hasContentLength() &&
        response.getContentLength64() > static_cast<Poco::Int64>(max_bytes)) {
      return failure("file download", "larger than " + std::to_string(max_bytes) + " bytes");
    }
    if (!readLimited(in, max_bytes, &reply.body)) {
      return failure("file download", "larger than " + std::to_string(max_bytes) + " bytes");
    }
    return reply;
  } catch (const Poco::Exception& e) {
    return failure("file download", e.displayText());
  } catch (const std::exception& e) {
    return failure("file download", e.what());
  }
}

}  // namespace gantry::telegram
