/// channel_discord.so: the descriptor and factory.

#include "discord_channel.h"
#include "gantry/abi.h"

namespace {

const gantry::ConfigKey kConfig[] = {
    {"DISCORD_BOT_TOKEN", nullptr, true, true},
    {"DISCORD_ALLOWED_USERS", nullptr, true, false},
    {"DISCORD_API_BASE", "https://discord.com/api/v10", false, false},
    {"DISCORD_GATEWAY_URL", nullptr, false, false},
    {nullptr, nullptr, false, false},
};

gantry::Channel* createChannel(gantry::Host& host, std::string* err) noexcept {
  try {
    auto config = gantry::discord::readConfig(host);
    if (!config.isOk()) {
      *err = config.status().message();
      return nullptr;
    }
    return new gantry::discord::DiscordChannel(host, std::move(config.value()));
  } catch (const std::exception& e) {
    *err = std::string("discord: ") + e.what();
    return nullptr;
  }
}

const gantry_module_desc kDescriptor = {
    GANTRY_ABI_VERSION,
    sizeof(gantry_module_desc),
    GANTRY_BUILD_SIGNATURE,
    gantry::ModuleKind::kChannel,
    "discord",
    "0.1.0",
    kConfig,
    &createChannel,
    nullptr,
};

}  // namespace

GANTRY_DECLARE_MODULE(kDescriptor)
