// fuzz_vault_seed DIR: writes the vault fuzz target's seeds into DIR, vaults sealed with the
// fixed key file (vault_fuzz_key.h): one empty, one with two secrets.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "vault/vault.h"
#include "vault_fuzz_key.h"

namespace {

bool write(const std::string& path, const std::vector<std::string>& names) {
  gantry::vault::Keys keys;
  keys.key_file = gantry::fuzz::kVaultKey;
  auto vault = gantry::vault::Vault::create(keys);
  if (!vault.isOk()) return false;
  std::int64_t now_ms = 1'767'225'600'000;
  for (const auto& name : names) vault.value().set(name, "value of " + name, now_ms++);
  const auto status = vault.value().save(path);
  if (!status.isOk()) std::fprintf(stderr, "%s\n", status.message().c_str());
  return status.isOk();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_vault_seed DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const bool ok = write(dir + "/empty", {}) &&
                  write(dir + "/two_secrets", {"telegram_bot_token", "github.pat"});
  return ok ? 0 : 1;
}
