#include "chat/redacting_channel.h"

#include "log/log.h"

namespace gantry::chat {

Result<std::string> RedactingChannel::send(const std::string& chat_id,
                                           std::string_view text) noexcept {
  try {
    return inner().send(chat_id, log::redact(std::string(text)));
  } catch (const std::exception& e) {
    return Status::error(std::string("redaction failed: ") + e.what());
  }
}

Status RedactingChannel::edit(const std::string& chat_id, const std::string& message_id,
                              std::string_view text) noexcept {
  try {
    return inner().edit(chat_id, message_id, log::redact(std::string(text)));
  } catch (const std::exception& e) {
    return Status::error(std::string("redaction failed: ") + e.what());
  }
}

Result<std::string> RedactingChannel::sendPhoto(const std::string& chat_id, const Image& image,
                                                std::string_view caption) noexcept {
  try {
    return inner().sendPhoto(chat_id, image, log::redact(std::string(caption)));
  } catch (const std::exception& e) {
    return Status::error(std::string("redaction failed: ") + e.what());
  }
}

Status RedactingChannel::streamText(const std::string& chat_id, std::string_view delta,
                                    bool final) noexcept {
  try {
    std::string ready;
    {
      std::lock_guard lock(mutex_);
      std::string& held = held_[chat_id];
      // Redacted whole first, so a secret completed by this delta is replaced before any of
      // it is written; then the end that may begin another one waits.
      std::string text = log::redact(held + std::string(delta));
      std::size_t keep = final ? 0 : log::redactionHoldBack(text);
      held = text.substr(text.size() - keep);
      ready = text.substr(0, text.size() - keep);
      if (final) held_.erase(chat_id);
    }
    if (ready.empty() && !final) return Status::ok();
    return inner().streamText(chat_id, ready, final);
  } catch (const std::exception& e) {
    return Status::error(std::string("redaction failed: ") + e.what());
  }
}

void RedactingChannel::event(const std::string& chat_id, const TurnEvent& event) noexcept {
  try {
    TurnEvent redacted = event;
    redacted.message = log::redact(event.message);
    inner().event(chat_id, redacted);
  } catch (const std::exception&) {
    // An event is a courtesy; one that cannot be redacted is not sent.
  }
}

}  // namespace gantry::chat
