#pragma once
/// RedactingChannel: the channel as the core's chat code sees it — every text bound for a chat
/// (replies, edits, captions, notices, error text, events) passes the redactor first, so a
/// secret the model learned from the user, or an error that quotes one, reaches the chat only
/// as `[redacted:NAME]`. A terminal's stream is append-only: each chat's stream keeps back
/// the end that may begin a secret until the next delta, or the end, shows whether it does.

#include <map>
#include <mutex>
#include <string>

#include "gantry/forwarding_channel.h"

namespace gantry::chat {

class RedactingChannel final : public ForwardingChannel {
 public:
  using ForwardingChannel::ForwardingChannel;

  Result<std::string> send(const std::string& chat_id, std::string_view text) noexcept override;
  Status edit(const std::string& chat_id, const std::string& message_id,
              std::string_view text) noexcept override;
  Result<std::string> sendPhoto(const std::string& chat_id, const Image& image,
                                std::string_view caption) noexcept override;
  Status streamText(const std::string& chat_id, std::string_view delta,
                    bool final) noexcept override;
  void event(const std::string& chat_id, const TurnEvent& event) noexcept override;

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> held_;  ///< per chat: streamed text not yet written
};

}  // namespace gantry::chat
