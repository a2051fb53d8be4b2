// The module's descriptor and factory: channel_telegram.so.

#include <memory>

#include "gantry/abi.h"
#include "gantry/guard.h"
#include "telegram_channel.h"

namespace {

const gantry::ConfigKey kConfig[] = {
    {"TELEGRAM_BOT_TOKEN", nullptr, true, true},
    {"TELEGRAM_ALLOWED_USERS", nullptr, true, false},
    {"TELEGRAM_API_BASE", "https://api.telegram.org", false, false},
    {"TELEGRAM_ERROR_REPORTING", "off", false, false},
    {"TELEGRAM_BACKOFF_MS", "1000", false, false},
    {nullptr, nullptr, false, false},
};

gantry::Channel* createChannel(gantry::Host& host, std::string* err) noexcept {
  try {
    gantry::telegram::Options options;
    if (!gantry::telegram::optionsFromHost(host, &options, err)) return nullptr;
    return std::make_unique<gantry::telegram::TelegramChannel>(host, std::move(options)).release();
  } catch (const std::exception& e) {
    *err = std::string("telegram: ") + e.what();
    return nullptr;
  }
}

const gantry_module_desc kDescriptor = {
    GANTRY_ABI_VERSION,
    sizeof(gantry_module_desc),
    GANTRY_BUILD_SIGNATURE,
    gantry::ModuleKind::kChannel,
    "telegram",
    "0.1.0",
    kConfig,
    &createChannel,
    nullptr,
};

}  // namespace

GANTRY_DECLARE_MODULE(kDescriptor)
