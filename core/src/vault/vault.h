#pragma once
/// The vault ($DATA_DIR/vault): named secrets sealed with one random data key
/// (XChaCha20-Poly1305, the entry name as associated data), the data key wrapped in up to
/// two slots — a passphrase slot (Argon2id) for the operator's CLI and a key-file slot
/// (32 raw bytes) so a service boots without a key derivation. A keyed MAC over the whole
/// file, with a generation counter, catches a removed, reordered or altered entry. The only
/// code that includes sodium.h. Not thread-safe; the file is replaced atomically on save.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/status.h"
#include "vault/vault_codec.h"

namespace gantry::vault {

/// The ways of unlocking that the caller has: either or both.
struct Keys {
  std::optional<std::string> passphrase;                 ///< GANTRY_VAULT_PASSPHRASE
  std::optional<std::array<std::uint8_t, 32>> key_file;  ///< the key file's 32 bytes
  bool empty() const { return !passphrase && !key_file; }
};

/// One secret as the CLI lists it (never printed with its value).
struct Entry {
  std::string name;
  std::int64_t created_ms = 0;
  std::int64_t updated_ms = 0;
};

/// `[A-Za-z0-9_.-]{1,64}`.
bool validName(std::string_view name);

class Vault {
 public:
  /// A new, empty vault unlocked by `keys` (not empty). The passphrase slot's Argon2id
  /// costs are libsodium's interactive limits.
  static Result<Vault> create(const Keys& keys);
  /// Reads and authenticates path. The error says which: damaged or truncated, a wrong
  /// passphrase or key file, or tampered (the MAC or an entry does not verify).
  static Result<Vault> open(const std::string& path, const Keys& keys);

  Vault(Vault&& other) noexcept;
  Vault& operator=(Vault&& other) noexcept;
  Vault(const Vault&) = delete;
  Vault& operator=(const Vault&) = delete;
  ~Vault();

  /// The value of name, or nullopt when there is none.
  std::optional<std::string> get(std::string_view name) const;
  std::vector<Entry> list() const;
  void set(const std::string& name, const std::string& value, std::int64_t now_ms);
  /// False when there was no such entry.
  bool remove(std::string_view name);
  /// Adds a slot for each of keys' ways that the vault lacks (a key file given later).
  Status addSlots(const Keys& keys);
  /// Writes the vault to path atomically (temp file in the same directory, fsync, rename,
  /// fsync of the directory), mode 0600, with the generation one higher. On failure the
  /// old file is left as it was.
  Status save(const std::string& path);
  std::uint64_t generation() const { return image_.generation; }

 private:
  Vault() = default;
  Status unlock(const Keys& keys);
  Status authenticate(const std::string& body) const;
  Status decryptAll();
  std::array<std::uint8_t, 32> macKey() const;

  std::array<std::uint8_t, 32> data_key_{};
  VaultImage image_;
  std::vector<std::pair<std::string, std::string>> values_;  ///< name → plaintext, sorted
};

}  // namespace gantry::vault
