#pragma once
/// BotHttp: the Bot API over HTTP(S) with Poco. One session per request (sends come from
/// several threads); the long poll's session can be interrupted from another thread.

#include <Poco/Net/HTMLForm.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/URI.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::telegram {

/// An HTTP exchange: status 0 means no HTTP reply (connect failure, reset, timeout) and
/// error says why.
struct HttpReply {
  int status = 0;
  std::string body;
  std::string error;
  bool keep_alive = false;  ///< the connection may carry another request
};

/// Lets another thread interrupt a blocking request (stop() during a long poll).
/// Thread-safe; once aborted, every later request through it fails at once.
class AbortSlot {
 public:
  /// Interrupts the request in flight, if any, and refuses later ones.
  void abort();
  bool aborted() const;

 private:
  friend class BotHttp;
  bool attach(Poco::Net::HTTPClientSession* session);
  void detach();

  mutable std::mutex mutex_;
  Poco::Net::HTTPClientSession* session_ = nullptr;
  bool aborted_ = false;
};

/// Calls https://api.telegram.org/bot<token>/METHOD (or TELEGRAM_API_BASE). Never throws;
/// the token never appears in an error text. Safe to use from several threads: JSON calls
/// reuse a few kept-alive connections (no TLS handshake per streamed edit).
class BotHttp {
 public:
  /// api_base: scheme://host[:port][/path]; fails (ok() false) on anything else.
  BotHttp(const std::string& api_base, std::string token);

  bool ok() const { return !base_.getHost().empty(); }

  /// POSTs a JSON body to METHOD. slot, when given, can interrupt the call.
  HttpReply postJson(std::string_view method, const std::string& json, int timeout_seconds,
                     AbortSlot* slot = nullptr);
  /// POSTs a form (multipart when it holds a file part) to METHOD.
  HttpReply postForm(std::string_view method, Poco::Net::HTMLForm& form, int timeout_seconds);
  /// GETs {api_base}/file/bot<token>/<file_path>; fails past max_bytes.
  HttpReply download(const std::string& file_path, std::size_t max_bytes, int timeout_seconds);

 private:
  static constexpr std::size_t kPoolSize = 4;

  std::unique_ptr<Poco::Net::HTTPClientSession> open(int timeout_seconds) const;
  std::unique_ptr<Poco::Net::HTTPClientSession> acquire(int timeout_seconds, bool* reused);
  void release(std::unique_ptr<Poco::Net::HTTPClientSession> session);
  HttpReply exchange(Poco::Net::HTTPClientSession& session, std::string_view method,
                     const std::string& json, const AbortSlot* slot) const;
  std::string methodPath(std::string_view method) const;

  Poco::URI base_;
  std::string token_;
  std::mutex pool_mutex_;
  std::vector<std::unique_ptr<Poco::Net::HTTPClientSession>> pool_;
};

}  // namespace gantry::telegram
