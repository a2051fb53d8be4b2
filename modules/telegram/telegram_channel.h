#pragma once
/// TelegramChannel: the Bot API over long polling (getUpdates) and plain HTTPS calls.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "gantry/channel.h"
#include "gantry/host.h"
#include "telegram_api.h"
#include "telegram_http.h"

namespace gantry::telegram {

/// Everything the channel needs; built by the factory from the environment.
struct Options {
  std::string token;
  std::set<std::int64_t> allowed_users;
  std::string api_base = "https://api.telegram.org";
  int poll_timeout_seconds = 50;  ///< at most HEARTBEAT_SECONDS (see optionsFromHost)
  std::chrono::milliseconds backoff_initial{1000};  ///< TELEGRAM_BACKOFF_MS
  std::chrono::milliseconds backoff_max{30000};
  /// After an empty poll the server answered early (see PollPacer): first and last pause.
  std::chrono::milliseconds idle_pause_first{100};
  std::chrono::milliseconds idle_pause_max{1000};
  int transient_attempts = 5;  ///< per call, for 5xx and network faults
  int rate_limit_waits = 50;   ///< per call, for 429 retry_after waits
  int max_retry_after_seconds = 300;
  std::size_t max_photo_bytes = std::size_t{10} * 1024 * 1024;
  /// TELEGRAM_ERROR_REPORTING=error|warn: copies of the host's log records of that level go
  /// to the owner, the first id of TELEGRAM_ALLOWED_USERS (a private chat's id is the
  /// user's id). off (the default) leaves chat_id empty.
  OwnerReports reports;
};

/// Builds Options from the host's configuration; false with *err naming the variable.
bool optionsFromHost(Host& host, Options* options, std::string* err);

/// The channel. run() owns the receive loop on its calling thread; send/edit/typing/
/// sendPhoto may be called from any thread meanwhile and retry on their own (429
/// retry_after, 5xx/network with backoff), so a reply is delayed rather than lost.
class TelegramChannel final : public Channel {
 public:
  TelegramChannel(Host& host, Options options);
  TelegramChannel(const TelegramChannel&) = delete;
  TelegramChannel& operator=(const TelegramChannel&) = delete;

  ChannelCaps caps() const noexcept override;
  Status run(InboundSink& sink) noexcept override;
  /// Kept for run(), which registers them as the bot's command menu.
  void offerCommands(const std::vector<ChatCommand>& commands) noexcept override;
  void stop() noexcept override;
  Result<std::string> send(const std::string& chat_id, std::string_view text) noexcept override;
  Status edit(const std::string& chat_id, const std::string& message_id,
              std::string_view text) noexcept override;
  Status typing(const std::string& chat_id) noexcept override;
  Result<std::string> sendPhoto(const std::string& chat_id, const Image& image,
                                std::string_view caption) noexcept override;
  OwnerReports ownerReports() const noexcept override;
  /// An expandable quote (expandableQuote()).
  std::string quoteBlock(std::string_view lines) const noexcept override;

 private:
  using Attempt = std::function<HttpReply()>;

  // receive
  Status receiveLoop(InboundSink& sink);
  void registerCommands();
  Status handleBatch(const std::string& result_json, InboundSink& sink, std::int64_t* offset,
                     std::size_t* handled);
  Status waitAfterFailure(const Reply& reply, std::chrono::milliseconds* backoff);
  std::int64_t loadOffset();
  void saveOffset(std::int64_t offset);
  /// The update's message when it is one to hand over (an allowlisted sender's, in a private
  /// chat, with text or a photo); nullopt otherwise (logged).
  std::optional<InboundMessage> accepted(const Update& update);
  void attachPhoto(const Update& update, InboundMessage* message);
  bool stopRequested() const;
  void pause(std::chrono::milliseconds delay);

  // send
  Reply call(std::string_view method, const Attempt& attempt);
  Reply callJson(std::string_view method, const std::string& body);
  Result<std::string> sendPart(const std::string& chat_id, const Part& part);
  Status editPart(const std::string& chat_id, const std::string& message_id, const Part& part);
  Result<std::string> uploadPhoto(const std::string& chat_id, const Image& image,
                                  const Part* caption, bool html);
  Result<std::string> sendPhotoOnce(const std::string& chat_id, const Image& image,
                                    const Part* caption);
  static Status statusOf(std::string_view method, const Reply& reply);

  Host& host_;
  Options options_;
  BotHttp http_;
  AbortSlot poll_slot_;
  std::vector<ChatCommand> commands_;  ///< set before run()
  std::atomic<bool> stop_{false};
  std::mutex pause_mutex_;
  std::condition_variable pause_wake_;
};

}  // namespace gantry::telegram
