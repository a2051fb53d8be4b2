#pragma once
/// DiscordChannel: gantry::Channel over the Discord Gateway (receive) and REST API (send).

#include <memory>
#include <set>
#include <string>

#include "discord_gateway.h"
#include "discord_rest.h"
#include "gantry/channel.h"
#include "gantry/host.h"

namespace gantry::discord {

/// Settings read from the environment by the factory.
struct DiscordConfig {
  std::string token;
  std::set<std::string> allowed_users;
  std::string api_base = "https://discord.com/api/v10";
  std::string gateway_url;  ///< empty: ask GET /gateway/bot
};

/// Reads DISCORD_* from the host; an error naming the variable when one is missing or bad.
Result<DiscordConfig> readConfig(const Host& host);

class DiscordChannel final : public Channel {
 public:
  /// host must outlive the channel.
  DiscordChannel(Host& host, DiscordConfig config);

  ChannelCaps caps() const noexcept override;
  Status run(InboundSink& sink) noexcept override;
  void stop() noexcept override;
  Result<std::string> send(const std::string& chat_id, std::string_view text) noexcept override;
  Status edit(const std::string& chat_id, const std::string& message_id,
              std::string_view text) noexcept override;
  Status typing(const std::string& chat_id) noexcept override;
  Result<std::string> sendPhoto(const std::string& chat_id, const Image& image,
                                std::string_view caption) noexcept override;

 private:
  Result<std::string> gatewayUrl();
  InboundMessage inbound(const DiscordMessage& message);

  Host& host_;
  DiscordConfig config_;
  RestClient rest_;
  std::unique_ptr<Gateway> gateway_;
};

}  // namespace gantry::discord
