#include "telegram_http.h"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/StreamCopier.h>

#include <istream>
#include <mutex>
#include <ostream>

#include "gantry/net/low_latency_session.h"
#include "gantry/net/wake_reader.h"

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
  HttpReply reply;
  reply.error = std::string(what) + ": " + detail;
  return reply;
}

}  // namespace

void AbortSlot::abort() {
  std::lock_guard lock(mutex_);
  aborted_ = true;
  if (session_ != nullptr) net::wakeReader(session_->socket());  // the poller owns it
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
    session = net::makeLowLatencySession<Poco::Net::HTTPSClientSession>(
        base_.getHost(), base_.getPort(), clientContext());
  } else {
    session =
        net::makeLowLatencySession<Poco::Net::HTTPClientSession>(base_.getHost(), base_.getPort());
  }
  session->setKeepAlive(true);
  session->setTimeout(Poco::Timespan(10, 0), Poco::Timespan(timeout_seconds, 0),
                      Poco::Timespan(timeout_seconds, 0));
  return session;
}

std::string BotHttp::methodPath(std::string_view method) const {
  std::string path = base_.getPath();
  if (!path.empty() && path.back() == '/') path.pop_back();
  return path + "/bot" + token_ + "/" + std::string(method);
}

// A pooled connection the server has closed meanwhile fails before the request is read;
// that one failure is retried at once on a fresh connection.
HttpReply BotHttp::postJson(std::string_view method, const std::string& json, int timeout_seconds,
                            AbortSlot* slot) {
  for (int attempt = 0;; ++attempt) {
    bool reused = false;
    std::unique_ptr<Poco::Net::HTTPClientSession> session;
    try {
      session = acquire(timeout_seconds, &reused);
      if (slot != nullptr && !slot->attach(session.get())) return failure(method, "stopped");
      HttpReply reply = exchange(*session, method, json, slot);
      if (slot != nullptr) slot->detach();
      if (reply.keep_alive) release(std::move(session));
      return reply;
    } catch (const Poco::Exception& e) {
      if (slot != nullptr) slot->detach();
      if (!reused || attempt > 0 || (slot != nullptr && slot->aborted())) {
        return failure(method, e.displayText());
      }
    } catch (const std::exception& e) {
      if (slot != nullptr) slot->detach();
      return failure(method, e.what());
    }
  }
}

HttpReply BotHttp::exchange(Poco::Net::HTTPClientSession& session, std::string_view method,
                            const std::string& json, const AbortSlot* slot) const {
  HTTPRequest request(HTTPRequest::HTTP_POST, methodPath(method), HTTPRequest::HTTP_1_1);
  request.setContentType("application/json");
  request.setContentLength(static_cast<std::streamsize>(json.size()));
  request.setKeepAlive(true);
  session.sendRequest(request) << json;
  // An abort that came before the socket existed could not wake it; it is seen here, and
  // any later one shuts the connected socket down.
  if (slot != nullptr && slot->aborted()) throw Poco::IOException("stopped");
  HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  HttpReply reply;
  reply.status = static_cast<int>(response.getStatus());
  Poco::StreamCopier::copyToString(in, reply.body);
  reply.keep_alive = response.getKeepAlive();
  return reply;
}

std::unique_ptr<Poco::Net::HTTPClientSession> BotHttp::acquire(int timeout_seconds, bool* reused) {
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  {
    std::lock_guard lock(pool_mutex_);
    if (!pool_.empty()) {
      session = std::move(pool_.back());
      pool_.pop_back();
    }
  }
  *reused = session != nullptr;
  if (!session) session = open(timeout_seconds);
  session->setTimeout(Poco::Timespan(10, 0), Poco::Timespan(timeout_seconds, 0),
                      Poco::Timespan(timeout_seconds, 0));
  return session;
}

void BotHttp::release(std::unique_ptr<Poco::Net::HTTPClientSession> session) {
  std::lock_guard lock(pool_mutex_);
  if (pool_.size() < kPoolSize) pool_.push_back(std::move(session));
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
    HttpReply reply;
    reply.status = static_cast<int>(response.getStatus());
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
    HttpReply reply;
    reply.status = static_cast<int>(response.getStatus());
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
