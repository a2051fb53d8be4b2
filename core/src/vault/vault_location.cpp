#include "vault/vault_location.h"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>

#include "log/log.h"

namespace gantry::vault {
namespace {

constexpr const char* kCredentialName = "gantry-vault-key";

/// As ssh refuses a private key others can read: a key file open to group or others is
/// refused, naming the mode and the fix.
Status checkKeyFileMode(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return Status::ok();  // the read below names it
  if ((info.st_mode & 077) == 0) return Status::ok();
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", info.st_mode & 07777);
  return Status::error("GANTRY_VAULT_KEY_FILE: " + path + " is readable by group or others (mode " +
                       mode + "); make it private with: chmod 600 " + path);
}

Result<std::array<std::uint8_t, 32>> readKeyFile(const std::string& path) {
  if (Status s = checkKeyFileMode(path); !s.isOk()) return s;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error("GANTRY_VAULT_KEY_FILE: cannot read " + path);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() != 32) {
    return Status::error("GANTRY_VAULT_KEY_FILE: " + path + " holds " +
                         std::to_string(bytes.size()) +
                         " bytes, not 32 (make one with: head -c 32 /dev/urandom > " + path + ")");
  }
  std::array<std::uint8_t, 32> key{};
  std::copy(bytes.begin(), bytes.end(), key.begin());
  return key;
}

std::optional<std::string> keyFilePath(const config::EnvLookup& env) {
  if (auto path = env("GANTRY_VAULT_KEY_FILE")) return path;
  auto credentials = env("CREDENTIALS_DIRECTORY");
  if (!credentials) return std::nullopt;
  auto path = (std::filesystem::path(*credentials) / kCredentialName).string();
  return std::filesystem::exists(path) ? std::optional<std::string>(path) : std::nullopt;
}

/// The vault behind bootSecrets, opened once.
class LazyVault {
 public:
  LazyVault(config::EnvLookup env, std::shared_ptr<OpenedGeneration> opened)
      : env_(std::move(env)), opened_generation_(std::move(opened)) {}

  Result<std::string> get(std::string_view name) {
    std::lock_guard lock(mutex_);
    if (!opened_) open();
    if (!status_.isOk()) return status_;
    auto value = vault_->get(name);
    if (!value) {
      return Status::error("not in the vault (gantry secret set " + std::string(name) + ")");
    }
    log::addSecret(*value, std::string(name));
    return *value;
  }

 private:
  void open() {
    opened_ = true;
    auto location = locateVault(env_);
    if (!location.isOk()) {
      status_ = location.status();
      return;
    }
    if (!std::filesystem::exists(location->path)) {
      status_ = Status::error("there is no vault at " + location->path + " (gantry secret set)");
      return;
    }
    auto vault = Vault::open(location->path, location->keys);
    if (!vault.isOk()) {
      status_ = vault.status();
      return;
    }
    vault_ = std::make_unique<Vault>(std::move(vault.value()));
    if (opened_generation_) *opened_generation_ = vault_->generation();
  }

  config::EnvLookup env_;
  std::shared_ptr<OpenedGeneration> opened_generation_;
  std::mutex mutex_;
  bool opened_ = false;
  Status status_ = Status::ok();
  std::unique_ptr<Vault> vault_;
};

}  // namespace

Result<VaultLocation> locateVault(const config::EnvLookup& env) {
  VaultLocation location;
  location.path = (std::filesystem::path(env("DATA_DIR").value_or("/data")) / "vault").string();
  location.keys.passphrase = env("GANTRY_VAULT_PASSPHRASE");
  if (auto path = keyFilePath(env)) {
    auto key = readKeyFile(*path);
    if (!key.isOk()) return key.status();
    location.keys.key_file = key.value();
  }
  return location;
}

config::SecretLookup bootSecrets(const config::EnvLookup& env,
                                 std::shared_ptr<OpenedGeneration> opened) {
  auto vault = std::make_shared<LazyVault>(env, std::move(opened));
  return [vault](std::string_view name) { return vault->get(name); };
}

Status checkGeneration(std::uint64_t seen, std::uint64_t known, const std::string& path) {
  if (seen >= known) return Status::ok();
  return Status::error("vault: " + path + " is generation " + std::to_string(seen) +
                       ", older than generation " + std::to_string(known) +
                       " this instance read before: the file was replaced by an older copy. "
                       "Restore the newer vault (see gantry(1), VAULT ROLLBACK)");
}

}  // namespace gantry::vault
