#pragma once
/// Host: everything a module may ask of the core. Modules resolve no symbols from the
/// executable; they reach the core only through the Host& they are given.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gantry/status.h"

namespace gantry {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

/// Extra structured fields of a log line, rendered as JSON string members.
using LogFields = std::vector<std::pair<std::string, std::string>>;

/// Implemented by the core; outlives every module instance. All methods are thread-safe
/// and never throw.
class Host {
 public:
  virtual ~Host() = default;

  /// Writes one JSON log line on stderr, tagged with the module's name. Secret values are
  /// redacted by the host.
  virtual void log(LogLevel level, std::string_view msg, const LogFields& fields = {}) noexcept = 0;

  /// The value of a configuration key (environment, secrets resolved), or nullopt if unset.
  virtual std::optional<std::string> config(std::string_view key) const noexcept = 0;

  /// Small persistent module state (e.g. a long-poll offset), namespaced by module name.
  virtual std::optional<std::string> stateGet(std::string_view key) noexcept = 0;
  virtual Status stateSet(std::string_view key, std::string_view value) noexcept = 0;

  /// True once shutdown has begun; long loops should return promptly.
  virtual bool stopping() const noexcept = 0;
};

}  // namespace gantry
