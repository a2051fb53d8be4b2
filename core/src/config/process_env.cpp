#include "config/process_env.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

extern char** environ;  // NOLINT: POSIX

namespace gantry::config {
namespace {

struct Snapshot {
  bool captured = false;
  std::map<std::string, std::string, std::less<>> variables;
};

Snapshot& snapshot() {
  static Snapshot instance;
  return instance;
}

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

/// Overwrites the value bytes where they live (for the first variables, the block the kernel
/// reads /proc/PID/environ from), then drops the variable.
void wipe(const std::string& name) {
  if (char* value = std::getenv(name.c_str())) std::memset(value, 0, std::strlen(value));
  ::unsetenv(name.c_str());
}

}  // namespace

bool isSecretName(std::string_view name) {
  for (std::string_view suffix : {"_KEY", "_TOKEN", "_PASSPHRASE", "_SECRET", "_PASSWORD"}) {
    if (endsWith(name, suffix)) return true;
  }
  return false;
}

void captureEnvironment() {
  Snapshot& s = snapshot();
  if (s.captured) return;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    s.variables.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  s.captured = true;
  for (const auto& [name, value] : s.variables) {
    if (isSecretName(name)) wipe(name);
  }
}

std::vector<std::string> capturedEnvironment() {
  std::vector<std::string> entries;
  const Snapshot& s = snapshot();
  if (!s.captured) {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      entries.emplace_back(*entry);
    }
    return entries;
  }
  for (const auto& [name, value] : s.variables) {
    entries.push_back(std::string(name).append("=").append(value));
  }
  return entries;
}

const std::string* capturedVariable(std::string_view name) {
  const Snapshot& s = snapshot();
  if (s.captured) {
    auto found = s.variables.find(name);
    return found == s.variables.end() || found->second.empty() ? nullptr : &found->second;
  }
  // Not captured (tests of one area): the live environment, read fresh each time.
  thread_local std::string value;
  const char* live = std::getenv(std::string(name).c_str());
  if (live == nullptr || *live == '\0') return nullptr;
  value = live;
  return &value;
}

}  // namespace gantry::config
