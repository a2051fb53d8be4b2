#include "vault/secret_command.h"

#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "log/log.h"
#include "vault/vault_location.h"

namespace gantry::vault {
namespace {

constexpr const char* kUsage = "usage: gantry secret set NAME | list | rm NAME\n";

std::int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Turns terminal echo off for its lifetime when stdin is a terminal.
class NoEcho {
 public:
  NoEcho() : active_(::isatty(STDIN_FILENO) == 1 && ::tcgetattr(STDIN_FILENO, &saved_) == 0) {
    if (!active_) return;
    termios quiet = saved_;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  ~NoEcho() {
    if (active_) ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_);
  }
  NoEcho(const NoEcho&) = delete;
  NoEcho& operator=(const NoEcho&) = delete;
  bool active() const { return active_; }

 private:
  termios saved_{};
  bool active_;
};

std::string readValue(std::istream& in, const std::string& name, std::ostream& err) {
  NoEcho no_echo;
  if (no_echo.active()) err << "value for " << name << ": " << std::flush;
  std::string value((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (no_echo.active()) err << "\n";
  if (!value.empty() && value.back() == '\n') value.pop_back();
  if (!value.empty() && value.back() == '\r') value.pop_back();
  return value;
}

Result<Vault> openOrCreate(const VaultLocation& location) {
  if (!std::filesystem::exists(location.path)) return Vault::create(location.keys);
  auto vault = Vault::open(location.path, location.keys);
  if (!vault.isOk()) return vault.status();
  if (auto status = vault->addSlots(location.keys); !status.isOk()) return status;
  return vault;
}

int fail(std::ostream& err, const std::string& message) {
  err << "gantry: " << message << "\n";
  return 1;
}

int setSecret(const VaultLocation& location, const std::string& name, std::istream& in,
              std::ostream& err) {
  if (location.keys.empty()) {
    return fail(err, "secret set: no key (set GANTRY_VAULT_PASSPHRASE or GANTRY_VAULT_KEY_FILE)");
  }
  auto vault = openOrCreate(location);
  if (!vault.isOk()) return fail(err, vault.status().message());
  const auto value = readValue(in, name, err);
  if (value.empty()) return fail(err, "secret set " + name + ": the value is empty");
  vault->set(name, value, nowMs());
  auto saved = vault->save(location.path);
  return saved.isOk() ? 0 : fail(err, saved.message());
}

int listSecrets(const VaultLocation& location, std::ostream& out, std::ostream& err) {
  if (!std::filesystem::exists(location.path)) return 0;
  auto vault = Vault::open(location.path, location.keys);
  if (!vault.isOk()) return fail(err, vault.status().message());
  for (const auto& entry : vault->list()) {
    out << entry.name << "\t" << log::isoUtc(entry.created_ms) << "\t"
        << log::isoUtc(entry.updated_ms) << "\n";
  }
  return 0;
}

int removeSecret(const VaultLocation& location, const std::string& name, std::ostream& err) {
  if (!std::filesystem::exists(location.path))
    return fail(err, "secret rm: no vault at " + location.path);
  auto vault = Vault::open(location.path, location.keys);
  if (!vault.isOk()) return fail(err, vault.status().message());
  if (!vault->remove(name)) return fail(err, "secret rm: no secret named " + name);
  auto saved = vault->save(location.path);
  return saved.isOk() ? 0 : fail(err, saved.message());
}

}  // namespace

int secretCommand(const std::vector<std::string>& args, const config::EnvLookup& env,
                  std::istream& in, std::ostream& out, std::ostream& err) {
  const bool named = args.size() == 2 && (args[0] == "set" || args[0] == "rm");
  if (!named && !(args.size() == 1 && args[0] == "list")) return err << kUsage, 2;
  if (named && !validName(args[1])) {
    err << "gantry: secret names are 1-64 of A-Z a-z 0-9 . - _ (got \"" << args[1] << "\")\n";
    return 2;
  }
  auto location = locateVault(env);
  if (!location.isOk()) return fail(err, location.status().message());
  if (args[0] == "set") return setSecret(location.value(), args[1], in, err);
  if (args[0] == "rm") return removeSecret(location.value(), args[1], err);
  return listSecrets(location.value(), out, err);
}

}  // namespace gantry::vault
