#pragma once
/// The byte layout of $DATA_DIR/vault, without any cryptography: what is stored where, and
/// the checks that need no key (magic, lengths, the trailing checksum). Integers are little
/// endian. The layout, in order:
///   "GANTRYV1" | generation u64 | slot count u8 | slots | entry count u32 | entries |
///   mac[32] (keyed BLAKE2b of everything before it) | checksum[32] (BLAKE2b of everything
///   before it: a truncated or damaged file is told apart from a wrong key)
/// A slot: kind u8 (1 passphrase, 2 key file) | [passphrase: salt[16] opslimit u64 memlimit
/// u64] | nonce[24] | wrapped data key[48]. An entry: name length u8 | name | created_ms
/// i64 | updated_ms i64 | nonce[24] | ciphertext length u32 | ciphertext.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/status.h"

namespace gantry::vault {

enum class SlotKind : std::uint8_t { kPassphrase = 1, kKeyFile = 2 };

/// The data key wrapped for one way of unlocking the vault.
struct Slot {
  SlotKind kind = SlotKind::kKeyFile;
  std::array<std::uint8_t, 16> salt{};  ///< passphrase slots
  std::uint64_t opslimit = 0;           ///< passphrase slots: Argon2id costs
  std::uint64_t memlimit = 0;
  std::array<std::uint8_t, 24> nonce{};
  std::array<std::uint8_t, 48> wrapped{};  ///< 32-byte key + 16-byte tag
};

/// One secret, still sealed (its name is the associated data).
struct SealedEntry {
  std::string name;
  std::int64_t created_ms = 0;
  std::int64_t updated_ms = 0;
  std::array<std::uint8_t, 24> nonce{};
  std::string ciphertext;  ///< value + 16-byte tag
};

struct VaultImage {
  std::uint64_t generation = 0;
  std::vector<Slot> slots;
  std::vector<SealedEntry> entries;
  std::array<std::uint8_t, 32> mac{};
};

/// Everything the MAC covers (all but the mac and the checksum).
std::string encodeBody(const VaultImage& image);
/// The whole file: body, mac, checksum.
std::string encodeFile(const VaultImage& image);
/// Parses a whole file. Fails, naming what is wrong, on a damaged or truncated file; the
/// body the MAC covers is returned through *body for the caller to authenticate.
Result<VaultImage> decodeFile(std::string_view bytes, std::string* body);

}  // namespace gantry::vault
