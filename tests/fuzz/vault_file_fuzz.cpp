// The vault file reader (vault/vault_codec.h, vault/vault.h): any bytes are refused or read
// without a crash. The input is read as it is, then with its trailing checksum replaced by
// the right one (so the fuzzer reaches the slots and entries behind it), and that file is
// opened with a fixed key file (the seeds are vaults sealed with it: fuzz_vault_seed).

#include <sodium.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_support.h"
#include "vault/vault.h"
#include "vault_fuzz_key.h"

namespace {

constexpr std::size_t kChecksumBytes = 32;

/// bytes with the last 32 replaced by the BLAKE2b checksum of what is before them.
std::string withChecksum(std::string_view bytes) {
  std::string file(bytes.substr(0, bytes.size() - kChecksumBytes));
  unsigned char sum[kChecksumBytes];
  crypto_generichash(sum, sizeof sum, reinterpret_cast<const unsigned char*>(file.data()),
                     file.size(), nullptr, 0);
  file.append(reinterpret_cast<const char*>(sum), sizeof sum);
  return file;
}

const std::string& vaultPath() {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("gantry-fuzz-vault-" + std::to_string(getpid())))
          .string();
  return path;
}

void openFile(const std::string& file) {
  {
    std::ofstream out(vaultPath(), std::ios::binary | std::ios::trunc);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
  }
  gantry::vault::Keys keys;
  keys.key_file = gantry::fuzz::kVaultKey;
  auto vault = gantry::vault::Vault::open(vaultPath(), keys);
  if (!vault.isOk()) return;
  for (const auto& entry : vault.value().list()) (void)vault.value().get(entry.name);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = gantry::fuzz::asText(data, size);
  std::string body;
  (void)gantry::vault::decodeFile(bytes, &body);
  if (bytes.size() < kChecksumBytes) return 0;
  const std::string file = withChecksum(bytes);
  (void)gantry::vault::decodeFile(file, &body);
  openFile(file);
  return 0;
}
