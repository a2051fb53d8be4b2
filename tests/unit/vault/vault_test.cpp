#include "vault/vault.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace gantry::vault;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gantry-vault-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file() const { return (path / "vault").string(); }
};

Keys keyFile(std::uint8_t fill) {
  Keys keys;
  keys.key_file.emplace();
  keys.key_file->fill(fill);
  return keys;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

/// A vault with two secrets saved under dir, opened by key file 7.
void makeVault(const TempDir& dir) {
  auto vault = Vault::create(keyFile(7));
  REQUIRE(vault.isOk());
  vault->set("llm_key", "sk-test-1234", 1000);
  vault->set("bot.token", "123:abc", 2000);
  REQUIRE(vault->save(dir.file()).isOk());
}

}  // namespace

TEST_CASE("secrets survive a save and an open with the same key", "[vault]") {
  TempDir dir;
  makeVault(dir);
  auto vault = Vault::open(dir.file(), keyFile(7));
  REQUIRE(vault.isOk());
  CHECK(vault->get("llm_key") == "sk-test-1234");
  CHECK(vault->get("bot.token") == "123:abc");
  CHECK_FALSE(vault->get("other").has_value());
  const auto entries = vault->list();
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].name == "bot.token");  // sorted by name
  CHECK(entries[1].created_ms == 1000);
  CHECK(vault->generation() == 1);
  struct stat info {};
  REQUIRE(::stat(dir.file().c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
}

TEST_CASE("an update keeps the creation time, a removal is gone after the next open", "[vault]") {
  TempDir dir;
  makeVault(dir);
  auto vault = Vault::open(dir.file(), keyFile(7));
  REQUIRE(vault.isOk());
  vault->set("llm_key", "sk-new", 5000);
  CHECK(vault->remove("bot.token"));
  CHECK_FALSE(vault->remove("bot.token"));
  REQUIRE(vault->save(dir.file()).isOk());
  auto again = Vault::open(dir.file(), keyFile(7));
  REQUIRE(again.isOk());
  CHECK(again->get("llm_key") == "sk-new");
  CHECK_FALSE(again->get("bot.token").has_value());
  REQUIRE(again->list().size() == 1);
  CHECK(again->list()[0].created_ms == 1000);
  CHECK(again->list()[0].updated_ms == 5000);
  CHECK(again->generation() == 2);
}

TEST_CASE("a wrong key file or passphrase is told apart from a damaged file", "[vault]") {
  TempDir dir;
  makeVault(dir);
  auto wrong = Vault::open(dir.file(), keyFile(8));
  REQUIRE_FALSE(wrong.isOk());
  CHECK_THAT(wrong.status().message(), Catch::Contains("wrong key file"));
  Keys passphrase;
  passphrase.passphrase = "pw";
  auto none = Vault::open(dir.file(), passphrase);
  REQUIRE_FALSE(none.isOk());
  CHECK_THAT(none.status().message(), Catch::Contains("no key for this vault"));
  auto contents = read(dir.file());
  write(dir.file(), contents.substr(0, contents.size() - 10));
  auto truncated = Vault::open(dir.file(), keyFile(7));
  REQUIRE_FALSE(truncated.isOk());
  CHECK_THAT(truncated.status().message(), Catch::Contains("damaged or truncated"));
}

TEST_CASE("a passphrase slot and a key-file slot open the same vault", "[vault]") {
  TempDir dir;
  Keys both = keyFile(3);
  both.passphrase = "correct horse";
  auto vault = Vault::create(both);
  REQUIRE(vault.isOk());
  vault->set("x", "value", 1);
  REQUIRE(vault->save(dir.file()).isOk());
  Keys passphrase;
  passphrase.passphrase = "correct horse";
  auto by_passphrase = Vault::open(dir.file(), passphrase);
  REQUIRE(by_passphrase.isOk());
  CHECK(by_passphrase->get("x") == "value");
  CHECK(Vault::open(dir.file(), keyFile(3)).isOk());
  passphrase.passphrase = "wrong horse";
  auto wrong = Vault::open(dir.file(), passphrase);
  REQUIRE_FALSE(wrong.isOk());
  CHECK_THAT(wrong.status().message(), Catch::Contains("wrong passphrase"));
}

TEST_CASE("changing any byte of the file is caught", "[vault]") {
  TempDir dir;
  makeVault(dir);
  const auto original = read(dir.file());
  // Every byte position of a small vault: header, slot, entries, MAC and checksum.
  for (std::size_t i = 0; i < original.size(); ++i) {
    auto changed = original;
    changed[i] = static_cast<char>(changed[i] ^ 0x01);
    write(dir.file(), changed);
    INFO("byte " << i);
    CHECK_FALSE(Vault::open(dir.file(), keyFile(7)).isOk());
  }
}

TEST_CASE("a rewritten checksum does not hide a changed entry: the MAC catches it", "[vault]") {
  TempDir dir;
  makeVault(dir);
  std::string body;
  auto image = decodeFile(read(dir.file()), &body);
  REQUIRE(image.isOk());
  std::swap(image->entries[0], image->entries[1]);  // reordered, checksum recomputed
  write(dir.file(), encodeFile(image.value()));
  auto reordered = Vault::open(dir.file(), keyFile(7));
  REQUIRE_FALSE(reordered.isOk());
  CHECK_THAT(reordered.status().message(), Catch::Contains("tampered"));
  image->entries.pop_back();  // removed
  write(dir.file(), encodeFile(image.value()));
  CHECK_THAT(Vault::open(dir.file(), keyFile(7)).status().message(), Catch::Contains("tampered"));
}

TEST_CASE("absurd Argon2id costs in a passphrase slot are refused before deriving", "[vault]") {
  TempDir dir;
  Keys passphrase;
  passphrase.passphrase = "pw";
  auto vault = Vault::create(passphrase);
  REQUIRE(vault.isOk());
  REQUIRE(vault->save(dir.file()).isOk());
  std::string body;
  auto image = decodeFile(read(dir.file()), &body);
  REQUIRE(image.isOk());
  image->slots[0].memlimit = std::uint64_t{1} << 50;
  write(dir.file(), encodeFile(image.value()));
  auto opened = Vault::open(dir.file(), passphrase);
  REQUIRE_FALSE(opened.isOk());
  CHECK_THAT(opened.status().message(), Catch::Contains("costs are out of range"));
}

TEST_CASE("a save that cannot complete leaves the old file and no temp file", "[vault]") {
  TempDir dir;
  makeVault(dir);
  const auto before = read(dir.file());
  auto vault = Vault::open(dir.file(), keyFile(7));
  REQUIRE(vault.isOk());
  vault->set("llm_key", "changed", 9);
  const auto elsewhere = (dir.path / "missing-dir" / "vault").string();
  CHECK_FALSE(vault->save(elsewhere).isOk());
  // A crash between writing the temp file and the rename leaves only a stray temp file.
  write(dir.file() + ".tmp-crashed", "partial");
  CHECK(read(dir.file()) == before);
  auto reopened = Vault::open(dir.file(), keyFile(7));
  REQUIRE(reopened.isOk());
  CHECK(reopened->get("llm_key") == "sk-test-1234");
}

TEST_CASE("secret names are letters, digits, dot, dash and underscore, at most 64", "[vault]") {
  CHECK(validName("llm_key"));
  CHECK(validName("a.b-c_9"));
  CHECK(validName(std::string(64, 'a')));
  CHECK_FALSE(validName(""));
  CHECK_FALSE(validName(std::string(65, 'a')));
  CHECK_FALSE(validName("with space"));
  CHECK_FALSE(validName("slash/x"));
}
