#pragma once
/// Where the vault is and how this process may unlock it, from the environment, and the
/// secret lookup boot resolves `secret://NAME` references with.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "config/config.h"
#include "vault/vault.h"

namespace gantry::vault {

struct VaultLocation {
  std::string path;  ///< $DATA_DIR/vault (DATA_DIR defaults to /data)
  Keys keys;         ///< GANTRY_VAULT_PASSPHRASE and the key file, whichever are set
};

/// Reads DATA_DIR, GANTRY_VAULT_PASSPHRASE and the key file: GANTRY_VAULT_KEY_FILE, or when
/// unset $CREDENTIALS_DIRECTORY/gantry-vault-key if systemd passed that credential. A key
/// file that cannot be read or does not hold exactly 32 bytes is an error naming it.
Result<VaultLocation> locateVault(const config::EnvLookup& env);

/// The generation of the vault a lookup opened, once it has (0 before: no reference yet).
using OpenedGeneration = std::atomic<std::uint64_t>;

/// Resolves names from the vault at locateVault(env), opened on the first lookup (so a
/// process without references never needs a key) and kept open. Every value it returns is
/// registered for redaction in the log. opened, when given, receives the authenticated
/// generation of the file it opened. Thread-safe.
config::SecretLookup bootSecrets(const config::EnvLookup& env,
                                 std::shared_ptr<OpenedGeneration> opened = nullptr);

/// Refuses a vault older than one this instance read before: `seen` is the generation it
/// opened now, `known` the highest it remembers (0: none). A file replaced by an older copy
/// (an old token, a removed revocation) is an error naming both; the MAC alone cannot tell.
Status checkGeneration(std::uint64_t seen, std::uint64_t known, const std::string& path);

}  // namespace gantry::vault
