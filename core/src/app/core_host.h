#pragma once
/// CoreHost: the gantry::Host a module is given — its config lookups, its small state in
/// the store (namespaced by module name), and log lines tagged with the module's name.

#include <atomic>
#include <string>

#include "config/config.h"
#include "gantry/host.h"
#include "store/kv_repo.h"

namespace gantry::app {

class CoreHost final : public Host {
 public:
  /// store may be null (commands that run no module state); stopping is the process flag.
  CoreHost(std::string module, config::EnvLookup env, store::Store* store,
           const std::atomic<bool>& stopping);

  void log(LogLevel level, std::string_view msg, const LogFields& fields) noexcept override;
  std::optional<std::string> config(std::string_view key) const noexcept override;
  std::optional<std::string> stateGet(std::string_view key) noexcept override;
  Status stateSet(std::string_view key, std::string_view value) noexcept override;
  bool stopping() const noexcept override { return stopping_.load(); }

 private:
  std::string module_;
  config::EnvLookup env_;
  store::Store* store_;
  const std::atomic<bool>& stopping_;
};

}  // namespace gantry::app
