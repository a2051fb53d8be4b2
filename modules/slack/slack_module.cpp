// The channel_slack.so descriptor: Socket Mode receive, Web API send.

#include <memory>

#include "gantry/abi.h"
#include "slack_channel.h"

namespace {

const gantry::ConfigKey kConfig[] = {
    {"SLACK_BOT_TOKEN", nullptr, true, true},
    {"SLACK_APP_TOKEN", nullptr, true, true},
    {"SLACK_ALLOWED_USERS", nullptr, true, false},
    {"SLACK_API_BASE", "https://slack.com/api", false, false},
    {nullptr, nullptr, false, false},
};

gantry::Channel* createChannel(gantry::Host& host, std::string* err) noexcept {
  try {
    auto config = gantry::slack::readConfig(host);
    if (!config.isOk()) {
      *err = config.status().message();
      return nullptr;
    }
    return std::make_unique<gantry::slack::SlackChannel>(host, config.value()).release();
  } catch (const std::exception& e) {
    *err = std::string("slack: ") + e.what();
    return nullptr;
  }
}

const gantry_module_desc kDescriptor = {
    GANTRY_ABI_VERSION,
    sizeof(gantry_module_desc),
    GANTRY_BUILD_SIGNATURE,
    gantry::ModuleKind::kChannel,
    "slack",
    "0.1.0",
    kConfig,
    &createChannel,
    nullptr,
};

}  // namespace

GANTRY_DECLARE_MODULE(kDescriptor)
