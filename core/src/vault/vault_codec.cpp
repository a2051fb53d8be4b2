#include "vault/vault_codec.h"

#include <sodium.h>

#include <cstring>

namespace gantry::vault {
namespace {

constexpr std::string_view kMagic = "GANTRYV1";
constexpr std::size_t kHashBytes = 32;
constexpr std::size_t kMaxSlots = 2;

template <class Int>
void putInt(std::string* out, Int value) {
  for (std::size_t i = 0; i < sizeof(Int); ++i) {
    out->push_back(static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xff));
  }
}

template <std::size_t N>
void putBytes(std::string* out, const std::array<std::uint8_t, N>& bytes) {
  out->append(reinterpret_cast<const char*>(bytes.data()), N);
}

/// Reads fields in order; the first short read marks the whole parse as failed.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}
  bool ok() const { return ok_; }
  bool atEnd() const { return bytes_.empty(); }

  template <class Int>
  Int integer() {
    std::uint64_t value = 0;
    auto raw = take(sizeof(Int));
    for (std::size_t i = 0; i < raw.size(); ++i) {
      value |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(raw[i])) << (8 * i);
    }
    return static_cast<Int>(value);
  }

  template <std::size_t N>
  void bytes(std::array<std::uint8_t, N>* out) {
    auto raw = take(N);
    if (raw.size() == N) std::memcpy(out->data(), raw.data(), N);
  }

  std::string_view take(std::size_t n) {
    if (!ok_ || bytes_.size() < n) {
      ok_ = false;
      return {};
    }
    auto piece = bytes_.substr(0, n);
    bytes_.remove_prefix(n);
    return piece;
  }

 private:
  std::string_view bytes_;
  bool ok_ = true;
};

void putSlot(std::string* out, const Slot& slot) {
  out->push_back(static_cast<char>(slot.kind));
  if (slot.kind == SlotKind::kPassphrase) {
    putBytes(out, slot.salt);
    putInt(out, slot.opslimit);
    putInt(out, slot.memlimit);
  }
  putBytes(out, slot.nonce);
  putBytes(out, slot.wrapped);
}

void putEntry(std::string* out, const SealedEntry& entry) {
  out->push_back(static_cast<char>(entry.name.size()));
  out->append(entry.name);
  putInt(out, entry.created_ms);
  putInt(out, entry.updated_ms);
  putBytes(out, entry.nonce);
  putInt(out, static_cast<std::uint32_t>(entry.ciphertext.size()));
  out->append(entry.ciphertext);
}

bool readSlot(Cursor& in, Slot* slot) {
  const auto kind = in.integer<std::uint8_t>();
  if (kind != 1 && kind != 2) return false;
  slot->kind = static_cast<SlotKind>(kind);
  if (slot->kind == SlotKind::kPassphrase) {
    in.bytes(&slot->salt);
    slot->opslimit = in.integer<std::uint64_t>();
    slot->memlimit = in.integer<std::uint64_t>();
  }
  in.bytes(&slot->nonce);
  in.bytes(&slot->wrapped);
  return in.ok();
}

bool readEntry(Cursor& in, SealedEntry* entry) {
  const auto name_length = in.integer<std::uint8_t>();
  entry->name = std::string(in.take(name_length));
  entry->created_ms = in.integer<std::int64_t>();
  entry->updated_ms = in.integer<std::int64_t>();
  in.bytes(&entry->nonce);
  const auto length = in.integer<std::uint32_t>();
  entry->ciphertext = std::string(in.take(length));
  return in.ok() && name_length > 0;
}

std::array<std::uint8_t, kHashBytes> checksum(std::string_view bytes) {
  std::array<std::uint8_t, kHashBytes> hash{};
  crypto_generichash(hash.data(), hash.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                     bytes.size(), nullptr, 0);
  return hash;
}

}  // namespace

std::string encodeBody(const VaultImage& image) {
  std::string out(kMagic);
  putInt(&out, image.generation);
  out.push_back(static_cast<char>(image.slots.size()));
  for (const auto& slot : image.slots) putSlot(&out, slot);
  putInt(&out, static_cast<std::uint32_t>(image.entries.size()));
  for (const auto& entry : image.entries) putEntry(&out, entry);
  return out;
}

std::string encodeFile(const VaultImage& image) {
  auto out = encodeBody(image);
  putBytes(&out, image.mac);
  putBytes(&out, checksum(out));
  return out;
}

Result<VaultImage> decodeFile(std::string_view bytes, std::string* body) {
  if (bytes.size() < kMagic.size() + 2 * kHashBytes || bytes.substr(0, kMagic.size()) != kMagic) {
    return Status::error("not a gantry vault, or truncated (no GANTRYV1 header)");
  }
  const auto content = bytes.substr(0, bytes.size() - kHashBytes);
  const auto stored = checksum(content);
  if (sodium_memcmp(stored.data(), bytes.data() + content.size(), kHashBytes) != 0) {
    return Status::error("damaged or truncated (checksum mismatch)");
  }
  Cursor in(content.substr(kMagic.size(), content.size() - kMagic.size() - kHashBytes));
  VaultImage image;
  image.generation = in.integer<std::uint64_t>();
  const auto slots = in.integer<std::uint8_t>();
  if (slots == 0 || slots > kMaxSlots) return Status::error("damaged (bad key slot count)");
  image.slots.resize(slots);
  for (auto& slot : image.slots) {
    if (!readSlot(in, &slot)) return Status::error("damaged (unreadable key slot)");
  }
  const auto count = in.integer<std::uint32_t>();
  while (in.ok() && !in.atEnd() && image.entries.size() < count) {
    SealedEntry entry;
    if (!readEntry(in, &entry)) break;
    image.entries.push_back(std::move(entry));
  }
  if (!in.ok() || !in.atEnd() || image.entries.size() != count) {
    return Status::error("damaged (unreadable entries)");
  }
  std::memcpy(image.mac.data(), content.data() + content.size() - kHashBytes, kHashBytes);
  *body = std::string(content.substr(0, content.size() - kHashBytes));
  return image;
}

}  // namespace gantry::vault
