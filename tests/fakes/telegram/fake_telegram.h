#pragma once
/// FakeTelegram: a loopback Bot API server for tests, following the public documentation:
/// /bot<token>/METHOD with JSON, urlencoded or multipart bodies; {ok, result} replies and
/// {ok:false, error_code, description, parameters.retry_after} errors; getUpdates long
/// polling that confirms updates below the offset; HTML entity parsing with Telegram's
/// limits; /file/bot<token>/<path> downloads. Faults (429, 5xx, dropped connections) are
/// scripted per method. Thread-safe; the control API is both C++ and HTTP (/control/...).

#include <Poco/ThreadPool.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace Poco::Net {
class HTTPServer;
class HTTPServerRequest;
class HTTPServerResponse;
}  // namespace Poco::Net

namespace gantry::fakes {

struct BotParams;

/// A call the fake accepted: sendMessage, editMessageText, sendPhoto or sendChatAction.
struct SentRecord {
  std::string method;
  std::string chat_id;
  std::string message_id;
  std::string text;        ///< text or caption, as sent (HTML source when parse_mode is set)
  std::string parse_mode;  ///< "" for plain text
  std::string photo;       ///< URL or file_id; "upload" for an uploaded file
  std::size_t photo_bytes = 0;
};

/// One entry of the bot's command menu (setMyCommands).
struct BotCommandRecord {
  std::string command;
  std::string description;
};

/// A scripted failure for the next `count` calls of `method` ("" = any method).
struct Fault {
  std::string method;
  int status = 500;         ///< HTTP status and error_code
  std::string description;  ///< defaults to Telegram's text for the status
  int retry_after = 0;      ///< sent as parameters.retry_after when > 0
  bool drop = false;        ///< close the connection without any reply instead
  int count = 1;
  /// > 0: hold the call this long (or until stop), then close the connection when drop is
  /// set (a drop mid-poll), else answer as usual (a request that hangs; status is unused)
  int hang_ms = 0;
};

class FakeTelegram {
 public:
  /// Nothing listens until start().
  explicit FakeTelegram(std::string token = "123456:fake-token");
  ~FakeTelegram();
  FakeTelegram(const FakeTelegram&) = delete;
  FakeTelegram& operator=(const FakeTelegram&) = delete;

  /// Binds 127.0.0.1 on an ephemeral port and serves on Poco's thread pool.
  void start();
  /// Ends pending long polls and stops serving; idempotent.
  void stop();

  int port() const { return port_; }
  /// "http://127.0.0.1:PORT", for TELEGRAM_API_BASE.
  std::string apiBase() const;
  const std::string& token() const { return token_; }

  /// Queues an Update (a JSON object; update_id is assigned). Returns the update_id.
  std::int64_t enqueueUpdate(const std::string& update_json);
  /// Queues a text message from user_id in its private chat (chat id = user id).
  std::int64_t enqueueText(std::int64_t user_id, const std::string& text,
                           const std::string& chat_type = "private");
  /// Queues a photo message (three sizes of the registered file_id) with a caption.
  std::int64_t enqueuePhoto(std::int64_t user_id, const std::string& file_id,
                            const std::string& caption);
  /// Registers a file for getFile and /file/ downloads.
  void addFile(const std::string& file_id, const std::string& file_path, std::string bytes);
  void addFault(Fault fault);
  /// false: getUpdates answers at once, ignoring its timeout, as some local Bot API
  /// servers, proxies and emulators do (default true: polls are held like Telegram's).
  void setHoldPolls(bool hold);

  /// sendMessage takes this long, half before the message is recorded and half before the
  /// reply (a network round trip), so a client can die on either side of the delivery.
  void setSendLatency(std::chrono::milliseconds latency);

  std::vector<SentRecord> sent() const;
  /// Records of one method only.
  std::vector<SentRecord> sent(const std::string& method) const;
  /// Waits until at least n records of method ("" = any) exist; false after timeout.
  bool waitSent(std::size_t n, const std::string& method,
                std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;
  /// Waits for the nth (from 1) sent or edited text containing needle; returns it, or "" after
  /// timeout.
  std::string waitText(const std::string& needle, int nth = 1,
                       std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;
  /// Calls received per method, including failed ones.
  int calls(const std::string& method) const;
  /// Waits until method has been called at least n times; false after timeout.
  bool waitCalls(const std::string& method, int n,
                 std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;
  /// Waits until a getUpdates long poll is parked waiting for updates; false after timeout.
  bool waitPolling(std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;
  /// The highest offset a getUpdates call has confirmed (0 when none).
  std::int64_t confirmedOffset() const;
  /// The command menu setMyCommands last set (empty until then).
  std::vector<BotCommandRecord> commands() const;
  /// sent() as a JSON array, for GET /control/sent.
  std::string sentJson() const;

  /// Serves one request (called by the server's handler threads).
  void handle(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response);

 private:
  struct Stored {
    std::string chat_id;
    std::string source;  // text as sent
    std::string parse_mode;
  };

  void handleBot(const std::string& path, Poco::Net::HTTPServerRequest& request,
                 Poco::Net::HTTPServerResponse& response);
  void handleFile(const std::string& path, Poco::Net::HTTPServerResponse& response);
  void handleControl(const std::string& path, Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response);
  bool takeFault(const std::string& method, Fault* fault);
  void sleepLatency();
  std::string dispatch(const std::string& method, const BotParams& params, int* status);
  std::string getUpdates(const BotParams& params, int* status);
  std::string sendMessage(const BotParams& params, int* status);
  std::string editMessageText(const BotParams& params, int* status);
  std::string sendPhoto(const BotParams& params, int* status);
  std::string getFile(const BotParams& params, int* status);
  std::string setMyCommands(const BotParams& params, int* status);
  std::string getMyCommands() const;
  std::string messageJson(std::int64_t id, const std::string& chat_id, const std::string& text);
  void record(SentRecord record);

  std::string token_;
  int port_ = 0;
  // The server's own threads, so stop() can wait for every handler, even one that had not
  // started when the server stopped accepting.
  Poco::ThreadPool pool_{2, 32};
  std::unique_ptr<Poco::Net::HTTPServer> server_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool stopping_ = false;
  bool hold_polls_ = true;
  std::chrono::milliseconds send_latency_{0};
  std::int64_t next_update_id_ = 100;
  std::int64_t next_message_id_ = 1;
  std::int64_t confirmed_ = 0;
  std::uint64_t poll_generation_ = 0;
  int polls_waiting_ = 0;
  std::vector<std::pair<std::int64_t, std::string>> updates_;         // id, Update JSON
  std::map<std::string, std::pair<std::string, std::string>> files_;  // id -> path, bytes
  std::map<std::string, Stored> messages_;                            // chat:id -> message
  std::vector<Fault> faults_;
  std::vector<SentRecord> sent_;
  std::map<std::string, int> calls_;
  std::vector<BotCommandRecord> commands_;
};

/// Parses Telegram HTML as the Bot API does: supported tags only, balanced, entities
/// decoded. Returns false with Telegram's error text (after "can't parse entities: ").
bool parseTelegramHtml(const std::string& html, std::string* visible, std::string* error);

/// UTF-16 code units of text, the unit of Telegram's length limits.
std::size_t utf16Length(const std::string& text);

}  // namespace gantry::fakes
