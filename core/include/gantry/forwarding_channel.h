#pragma once
/// ForwardingChannel: a Channel that hands every call to another one unchanged. A wrapper
/// derives from it and overrides only what it adds to, so a method added to Channel is
/// forwarded by every wrapper without touching them.

#include "gantry/channel.h"

namespace gantry {

class ForwardingChannel : public Channel {
 public:
  /// inner is not owned and outlives this.
  explicit ForwardingChannel(Channel& inner) : inner_(inner) {}

  ChannelCaps caps() const noexcept override { return inner_.caps(); }
  Status run(InboundSink& sink) noexcept override { return inner_.run(sink); }
  void offerCommands(const std::vector<ChatCommand>& commands) noexcept override {
    inner_.offerCommands(commands);
  }
  void stop() noexcept override { inner_.stop(); }
  Result<std::string> send(const std::string& chat_id, std::string_view text) noexcept override {
    return inner_.send(chat_id, text);
  }
  Status edit(const std::string& chat_id, const std::string& message_id,
              std::string_view text) noexcept override {
    return inner_.edit(chat_id, message_id, text);
  }
  Status typing(const std::string& chat_id) noexcept override { return inner_.typing(chat_id); }
  Result<std::string> sendPhoto(const std::string& chat_id, const Image& image,
                                std::string_view caption) noexcept override {
    return inner_.sendPhoto(chat_id, image, caption);
  }
  Status streamText(const std::string& chat_id, std::string_view delta,
                    bool final) noexcept override {
    return inner_.streamText(chat_id, delta, final);
  }
  void event(const std::string& chat_id, const TurnEvent& event) noexcept override {
    inner_.event(chat_id, event);
  }
  OwnerReports ownerReports() const noexcept override { return inner_.ownerReports(); }
  std::string ownerChat() const noexcept override { return inner_.ownerChat(); }
  void status(const std::string& chat_id, std::string_view text) noexcept override {
    inner_.status(chat_id, text);
  }
  std::string quoteBlock(std::string_view lines) const noexcept override {
    return inner_.quoteBlock(lines);
  }

 protected:
  Channel& inner() const noexcept { return inner_; }

 private:
  Channel& inner_;
};

}  // namespace gantry
