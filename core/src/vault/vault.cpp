#include "vault/vault.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace gantry::vault {
namespace {

using Key = std::array<std::uint8_t, 32>;

constexpr std::size_t kTag = crypto_aead_xchacha20poly1305_ietf_ABYTES;
/// A tampered header must not make us burn minutes or gigabytes deriving a key.
constexpr std::uint64_t kMaxOpslimit = crypto_pwhash_OPSLIMIT_SENSITIVE;
constexpr std::uint64_t kMaxMemlimit = crypto_pwhash_MEMLIMIT_SENSITIVE;

const unsigned char* bytes(std::string_view text) {
  return reinterpret_cast<const unsigned char*>(text.data());
}

std::string slotLabel(SlotKind kind) {
  return kind == SlotKind::kPassphrase ? "gantry-vault-slot:passphrase" : "gantry-vault-slot:key";
}

Status ready() {
  static const bool ok = sodium_init() >= 0;
  return ok ? Status::ok() : Status::error("vault: libsodium could not initialise");
}

void seal(const Key& key, std::string_view ad, std::string_view plain,
          std::array<std::uint8_t, 24>* nonce, unsigned char* out) {
  randombytes_buf(nonce->data(), nonce->size());
  crypto_aead_xchacha20poly1305_ietf_encrypt(out, nullptr, bytes(plain), plain.size(), bytes(ad),
                                             ad.size(), nullptr, nonce->data(), key.data());
}

bool unseal(const Key& key, std::string_view ad, std::string_view sealed,
            const std::array<std::uint8_t, 24>& nonce, unsigned char* out) {
  return sealed.size() >= kTag && crypto_aead_xchacha20poly1305_ietf_decrypt(
                                      out, nullptr, nullptr, bytes(sealed), sealed.size(),
                                      bytes(ad), ad.size(), nonce.data(), key.data()) == 0;
}

Result<Key> passphraseKey(const Slot& slot, const std::string& passphrase) {
  if (slot.opslimit < crypto_pwhash_OPSLIMIT_MIN || slot.opslimit > kMaxOpslimit ||
      slot.memlimit < crypto_pwhash_MEMLIMIT_MIN || slot.memlimit > kMaxMemlimit) {
    return Status::error("damaged (the passphrase slot's Argon2id costs are out of range)");
  }
  Key key{};
  if (crypto_pwhash(key.data(), key.size(), passphrase.data(), passphrase.size(), slot.salt.data(),
                    slot.opslimit, slot.memlimit, crypto_pwhash_ALG_ARGON2ID13) != 0) {
    return Status::error("not enough memory to derive the passphrase key");
  }
  return key;
}

Slot newSlot(SlotKind kind) {
  Slot slot;
  slot.kind = kind;
  if (kind == SlotKind::kPassphrase) {
    randombytes_buf(slot.salt.data(), slot.salt.size());
    slot.opslimit = crypto_pwhash_OPSLIMIT_INTERACTIVE;
    slot.memlimit = crypto_pwhash_MEMLIMIT_INTERACTIVE;
  }
  return slot;
}

/// The key that opens slot with keys, or nullopt when keys have none of that kind.
std::optional<Result<Key>> keyFor(const Slot& slot, const Keys& keys) {
  if (slot.kind == SlotKind::kKeyFile) {
    if (!keys.key_file) return std::nullopt;
    return Result<Key>(*keys.key_file);
  }
  if (!keys.passphrase) return std::nullopt;
  return passphraseKey(slot, *keys.passphrase);
}

Status writeAll(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const auto n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::error(std::string("write: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return ::fsync(fd) == 0 ? Status::ok()
                          : Status::error(std::string("fsync: ") + std::strerror(errno));
}

Status syncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::error("open " + dir + ": " + std::strerror(errno));
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok ? Status::ok() : Status::error("fsync " + dir + ": " + std::strerror(errno));
}

Status replaceFile(const std::string& path, const std::string& data) {
  const auto dir = std::filesystem::path(path).parent_path().string();
  std::string temp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return Status::error("vault: cannot write in " + dir + ": " + std::strerror(errno));
  ::fchmod(fd, 0600);
  auto status = writeAll(fd, data);
  ::close(fd);
  if (status.isOk() && ::rename(temp.c_str(), path.c_str()) != 0) {
    status = Status::error(std::string("rename: ") + std::strerror(errno));
  }
  if (!status.isOk()) {
    ::unlink(temp.c_str());
    return Status::error("vault: saving " + path + " failed (" + status.message() +
                         "); the old file is unchanged");
  }
  return syncDirectory(dir.empty() ? "." : dir);
}

}  // namespace

bool validName(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

Vault::Vault(Vault&& other) noexcept
    : data_key_(other.data_key_),
      image_(std::move(other.image_)),
      values_(std::move(other.values_)) {
  sodium_memzero(other.data_key_.data(), other.data_key_.size());
}

Vault& Vault::operator=(Vault&& other) noexcept {
  data_key_ = other.data_key_;
  image_ = std::move(other.image_);
  values_ = std::move(other.values_);
  sodium_memzero(other.data_key_.data(), other.data_key_.size());
  return *this;
}

Vault::~Vault() {
  sodium_memzero(data_key_.data(), data_key_.size());
  for (auto& [name, value] : values_) sodium_memzero(value.data(), value.size());
}

Result<Vault> Vault::create(const Keys& keys) {
  if (auto status = ready(); !status.isOk()) return status;
  if (keys.empty()) {
    return Status::error("vault: no key (set GANTRY_VAULT_PASSPHRASE or GANTRY_VAULT_KEY_FILE)");
  }
  Vault vault;
  crypto_aead_xchacha20poly1305_ietf_keygen(vault.data_key_.data());
  if (auto status = vault.addSlots(keys); !status.isOk()) return status;
  return vault;
}

Result<Vault> Vault::open(const std::string& path, const Keys& keys) {
  if (auto status = ready(); !status.isOk()) return status;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("vault " + path + ": cannot be read (" + std::strerror(errno) + ")");
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string body;
  auto image = decodeFile(file, &body);
  if (!image.isOk()) return Status::error("vault " + path + ": " + image.status().message());
  Vault vault;
  vault.image_ = std::move(image.value());
  Status status = vault.unlock(keys);
  if (status.isOk()) status = vault.authenticate(body);
  if (status.isOk()) status = vault.decryptAll();
  if (!status.isOk()) return Status::error("vault " + path + ": " + status.message());
  return vault;
}

// Key-file slots first: a service holding both ways should not pay for a key derivation.
Status Vault::unlock(const Keys& keys) {
  std::string refused;
  auto slots = image_.slots;
  std::stable_partition(slots.begin(), slots.end(),
                        [](const Slot& slot) { return slot.kind == SlotKind::kKeyFile; });
  for (const auto& slot : slots) {
    auto key = keyFor(slot, keys);
    if (!key) continue;
    if (!key->isOk()) return key->status();
    if (unseal(key->value(), slotLabel(slot.kind),
               std::string_view(reinterpret_cast<const char*>(slot.wrapped.data()),
                                slot.wrapped.size()),
               slot.nonce, data_key_.data())) {
      return Status::ok();
    }
    refused = slot.kind == SlotKind::kPassphrase ? "wrong passphrase (GANTRY_VAULT_PASSPHRASE)"
                                                 : "wrong key file (GANTRY_VAULT_KEY_FILE)";
  }
  if (!refused.empty()) return Status::error(refused);
  return Status::error(
      "no key for this vault: set GANTRY_VAULT_PASSPHRASE or "
      "GANTRY_VAULT_KEY_FILE to one it was sealed for");
}

std::array<std::uint8_t, 32> Vault::macKey() const {
  Key key{};
  crypto_kdf_derive_from_key(key.data(), key.size(), 1, "gantrymc", data_key_.data());
  return key;
}

Status Vault::authenticate(const std::string& body) const {
  const auto key = macKey();
  std::array<std::uint8_t, 32> mac{};
  crypto_generichash(mac.data(), mac.size(), bytes(body), body.size(), key.data(), key.size());
  if (sodium_memcmp(mac.data(), image_.mac.data(), mac.size()) != 0) {
    return Status::error(
        "tampered (the file's MAC does not verify: an entry was changed, "
        "removed or reordered)");
  }
  return Status::ok();
}

Status Vault::decryptAll() {
  values_.clear();
  for (const auto& entry : image_.entries) {
    if (entry.ciphertext.size() < kTag || !validName(entry.name)) {
      return Status::error("tampered (entry " + entry.name + ")");
    }
    std::string value(entry.ciphertext.size() - kTag, '\0');
    if (!unseal(data_key_, entry.name, entry.ciphertext, entry.nonce,
                reinterpret_cast<unsigned char*>(value.data()))) {
      return Status::error("tampered (entry " + entry.name + " does not verify)");
    }
    values_.emplace_back(entry.name, std::move(value));
  }
  return Status::ok();
}

std::optional<std::string> Vault::get(std::string_view name) const {
  for (const auto& [key, value] : values_) {
    if (key == name) return value;
  }
  return std::nullopt;
}

std::vector<Entry> Vault::list() const {
  std::vector<Entry> out;
  for (const auto& entry : image_.entries)
    out.push_back({entry.name, entry.created_ms, entry.updated_ms});
  return out;
}

void Vault::set(const std::string& name, const std::string& value, std::int64_t now_ms) {
  auto found = std::find_if(image_.entries.begin(), image_.entries.end(),
                            [&](const SealedEntry& entry) { return entry.name == name; });
  if (found == image_.entries.end()) {
    SealedEntry entry;
    entry.name = name;
    entry.created_ms = now_ms;
    found = image_.entries.insert(
        std::lower_bound(image_.entries.begin(), image_.entries.end(), name,
                         [](const SealedEntry& a, const std::string& b) { return a.name < b; }),
        entry);
    values_.emplace_back(name, value);
  } else {
    for (auto& [key, old] : values_) {
      if (key == name) old = value;
    }
  }
  found->updated_ms = now_ms;
  found->ciphertext.assign(value.size() + kTag, '\0');
  seal(data_key_, name, value, &found->nonce,
       reinterpret_cast<unsigned char*>(found->ciphertext.data()));
}

bool Vault::remove(std::string_view name) {
  const auto before = image_.entries.size();
  std::erase_if(image_.entries, [&](const SealedEntry& entry) { return entry.name == name; });
  std::erase_if(values_, [&](const auto& pair) { return pair.first == name; });
  return image_.entries.size() != before;
}

Status Vault::addSlots(const Keys& keys) {
  for (SlotKind kind : {SlotKind::kKeyFile, SlotKind::kPassphrase}) {
    const bool have =
        kind == SlotKind::kKeyFile ? keys.key_file.has_value() : keys.passphrase.has_value();
    const bool present = std::any_of(image_.slots.begin(), image_.slots.end(),
                                     [&](const Slot& slot) { return slot.kind == kind; });
    if (!have || present) continue;
    Slot slot = newSlot(kind);
    auto key = keyFor(slot, keys);
    if (!key->isOk()) return key->status();
    const std::string_view plain(reinterpret_cast<const char*>(data_key_.data()), data_key_.size());
    seal(key->value(), slotLabel(kind), plain, &slot.nonce, slot.wrapped.data());
    image_.slots.push_back(slot);
  }
  return Status::ok();
}

Status Vault::save(const std::string& path) {
  ++image_.generation;
  const auto body = encodeBody(image_);
  const auto key = macKey();
  crypto_generichash(image_.mac.data(), image_.mac.size(), bytes(body), body.size(), key.data(),
                     key.size());
  return replaceFile(path, encodeFile(image_));
}

}  // namespace gantry::vault
