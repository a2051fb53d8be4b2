#include "app/core_host.h"

#include "log/log.h"

namespace gantry::app {

CoreHost::CoreHost(std::string module, config::EnvLookup env, store::Store* store,
                   const std::atomic<bool>& stopping)
    : module_(std::move(module)), env_(std::move(env)), store_(store), stopping_(stopping) {}

void CoreHost::log(LogLevel level, std::string_view msg, const LogFields& fields) noexcept {
  try {
    LogFields tagged = fields;
    tagged.insert(tagged.begin(), {"module", module_});
    log::write(level, msg, tagged);
  } catch (...) {  // logging must never take a module down
  }
}

std::optional<std::string> CoreHost::config(std::string_view key) const noexcept {
  try {
    return env_(key);
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<std::string> CoreHost::stateGet(std::string_view key) noexcept {
  if (!store_) return std::nullopt;
  try {
    return store::KvRepo(*store_).get(module_, std::string(key));
  } catch (...) {
    return std::nullopt;
  }
}

Status CoreHost::stateSet(std::string_view key, std::string_view value) noexcept {
  if (!store_) return Status::error("module state is not available here");
  try {
    return store::KvRepo(*store_).set(module_, std::string(key), std::string(value));
  } catch (const std::exception& e) {
    return Status::error(std::string("store: module state: ") + e.what());
  }
}

}  // namespace gantry::app
