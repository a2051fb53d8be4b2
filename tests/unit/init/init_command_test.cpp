#include "app/init_command.h"

#include <sys/stat.h>
#include <toml++/toml.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using gantry::app::initCommand;

namespace {

/// A fresh directory under the system temp dir, removed at scope exit.
class TempDir final {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gantry-init-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct Run {
  int code;
  std::string out;
  std::string err;
};

Run init(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = initCommand(args, out, err);
  return {code, out.str(), err.str()};
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

mode_t permissions(const fs::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Sets GANTRY_ETC_DIR for one test and restores "unset" afterwards.
class EtcRootOverride final {
 public:
  explicit EtcRootOverride(const fs::path& root) { ::setenv("GANTRY_ETC_DIR", root.c_str(), 1); }
  ~EtcRootOverride() { ::unsetenv("GANTRY_ETC_DIR"); }
  EtcRootOverride(const EtcRootOverride&) = delete;
  EtcRootOverride& operator=(const EtcRootOverride&) = delete;
};

const std::vector<std::string> kPersonaFiles = {"IDENTITY.md", "SOUL.md", "USER.md", "TOOLS.md"};

}  // namespace

TEST_CASE("init DIR scaffolds persona, manifest, env file and data dir", "[init]") {
  TempDir tmp;
  const fs::path dir = tmp.path() / "agent";
  const Run run = init({dir.string()});
  REQUIRE(run.code == 0);
  CHECK(run.err.empty());
  for (const std::string& name : kPersonaFiles) {
    CHECK(fs::file_size(dir / "persona" / name) > 0);
    CHECK(contains(run.out, "created " + (dir / "persona" / name).string()));
  }
  CHECK(fs::is_regular_file(dir / "mcp.toml"));
  CHECK(fs::is_directory(dir / "data"));
  CHECK(permissions(dir / "gantry.env") == 0600);
  CHECK(permissions(dir / "data") == 0700);
  CHECK(contains(run.out, "set -a; . " + (dir / "gantry.env").string() + "; set +a; gantry"));
}

TEST_CASE("init DIR writes an env file that points into DIR and uses the stdio channel", "[init]") {
  TempDir tmp;
  REQUIRE(init({tmp.path().string()}).code == 0);
  const std::string env = slurp(tmp.path() / "gantry.env");
  CHECK(contains(env, "\nCHANNEL=stdio\n"));
  CHECK(contains(env, "\nLLM_BASE_URL=http://127.0.0.1:11434/v1\n"));
  CHECK(contains(env, "\nLLM_MODEL="));
  CHECK(contains(env, "\nPERSONA_DIR=" + (tmp.path() / "persona").string() + "\n"));
  CHECK(contains(env, "\nDATA_DIR=" + (tmp.path() / "data").string() + "\n"));
  CHECK(contains(env, "\nMCP_MANIFEST=" + (tmp.path() / "mcp.toml").string() + "\n"));
}

TEST_CASE("init quotes paths with spaces so the env file can be sourced", "[init]") {
  TempDir tmp;
  const fs::path dir = tmp.path() / "my agent";
  REQUIRE(init({dir.string()}).code == 0);
  CHECK(contains(slurp(dir / "gantry.env"), "\nDATA_DIR='" + (dir / "data").string() + "'\n"));
}

TEST_CASE("init without DIR scaffolds the current directory", "[init]") {
  TempDir tmp;
  const fs::path previous = fs::current_path();
  fs::current_path(tmp.path());
  const Run run = init({});
  fs::current_path(previous);
  REQUIRE(run.code == 0);
  CHECK(fs::is_regular_file(tmp.path() / "persona" / "SOUL.md"));
  CHECK(contains(slurp(tmp.path() / "gantry.env"),
                 "\nDATA_DIR=" + (tmp.path() / "data").string() + "\n"));
}

TEST_CASE("init never overwrites and names every file that exists", "[init]") {
  TempDir tmp;
  fs::create_directories(tmp.path() / "persona");
  std::ofstream(tmp.path() / "mcp.toml") << "# mine\n";
  std::ofstream(tmp.path() / "persona" / "USER.md") << "me\n";
  const Run run = init({tmp.path().string()});
  CHECK(run.code == 1);
  CHECK(contains(run.err, (tmp.path() / "mcp.toml").string()));
  CHECK(contains(run.err, (tmp.path() / "persona" / "USER.md").string()));
  CHECK_FALSE(contains(run.err, "SOUL.md"));
  CHECK(slurp(tmp.path() / "mcp.toml") == "# mine\n");
  CHECK(slurp(tmp.path() / "persona" / "USER.md") == "me\n");
  CHECK_FALSE(fs::exists(tmp.path() / "gantry.env"));
  CHECK_FALSE(fs::exists(tmp.path() / "persona" / "SOUL.md"));
}

TEST_CASE("the scaffolded manifest is valid TOML with no servers", "[init]") {
  TempDir tmp;
  REQUIRE(init({tmp.path().string()}).code == 0);
  const toml::table manifest = toml::parse_file((tmp.path() / "mcp.toml").string());
  CHECK(manifest.empty());
}

TEST_CASE("the scaffolded persona matches the sample persona shipped in etc/", "[init]") {
  TempDir tmp;
  REQUIRE(init({tmp.path().string()}).code == 0);
  for (const std::string& name : kPersonaFiles) {
    INFO(name);
    CHECK(slurp(tmp.path() / "persona" / name) ==
          slurp(fs::path(GANTRY_SOURCE_DIR) / "etc" / "persona" / name));
  }
}

TEST_CASE("init --instance writes the instance env, persona and manifest", "[init]") {
  TempDir tmp;
  EtcRootOverride root(tmp.path() / "etc");
  const Run run = init({"--instance", "home-bot_2"});
  REQUIRE(run.code == 0);
  const fs::path etc = tmp.path() / "etc";
  CHECK(permissions(etc / "home-bot_2.env") == 0600);
  CHECK(permissions(etc / "home-bot_2") == 0750);
  CHECK(permissions(etc / "home-bot_2" / "mcp.toml") == 0640);
  for (const std::string& name : kPersonaFiles) {
    CHECK(permissions(etc / "home-bot_2" / "persona" / name) == 0640);
  }
  CHECK(contains(run.out, "systemctl enable --now gantry@home-bot_2\n"));
}

TEST_CASE("the instance env file sets the channel and model but leaves paths to the unit",
          "[init]") {
  TempDir tmp;
  EtcRootOverride root(tmp.path());
  REQUIRE(init({"--instance", "work"}).code == 0);
  const std::string env = slurp(tmp.path() / "work.env");
  CHECK(contains(env, "\nCHANNEL="));
  CHECK(contains(env, "\nLLM_BASE_URL="));
  CHECK(contains(env, "\nLLM_MODEL="));
  CHECK(contains(env, "\n# TELEGRAM_ALLOWED_USERS="));
  CHECK(contains(env, "\n# DISCORD_ALLOWED_USERS="));
  CHECK(contains(env, "\n# SLACK_ALLOWED_USERS="));
  CHECK_FALSE(contains(env, "\nPERSONA_DIR="));
  CHECK_FALSE(contains(env, "\nDATA_DIR="));
  CHECK_FALSE(contains(env, "\nMCP_MANIFEST="));
}

TEST_CASE("a second instance does not disturb the first", "[init]") {
  TempDir tmp;
  EtcRootOverride root(tmp.path());
  REQUIRE(init({"--instance", "one"}).code == 0);
  std::ofstream(tmp.path() / "one.env", std::ios::app) << "CHANNEL=slack\n";
  REQUIRE(init({"--instance=two"}).code == 0);
  CHECK(contains(slurp(tmp.path() / "one.env"), "CHANNEL=slack\n"));
  CHECK(fs::is_regular_file(tmp.path() / "two" / "persona" / "IDENTITY.md"));
  const Run again = init({"--instance", "one"});
  CHECK(again.code == 1);
  CHECK(contains(again.err, (tmp.path() / "one.env").string()));
}

TEST_CASE("init refuses instance names outside [a-z0-9_-]", "[init]") {
  TempDir tmp;
  EtcRootOverride root(tmp.path());
  for (const std::string name : {"Bot", "a/b", "..", "a.b", "", "x y"}) {
    INFO(name);
    const Run run = init({"--instance", name});
    CHECK(run.code == 2);
    CHECK(contains(run.err, "instance name"));
  }
  CHECK(fs::is_empty(tmp.path()));
}

TEST_CASE("init reports usage errors with exit code 2", "[init]") {
  CHECK(init({"--instance"}).code == 2);
  CHECK(init({"--bogus"}).code == 2);
  CHECK(init({"a", "b"}).code == 2);
  const Run run = init({"--instance", "a", "b"});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "usage: gantry init"));
}

TEST_CASE("init --help prints usage and succeeds", "[init]") {
  const Run run = init({"--help"});
  CHECK(run.code == 0);
  CHECK(contains(run.out, "gantry init --instance NAME"));
  CHECK(run.err.empty());
}

TEST_CASE("init reports a directory it cannot create and exits 1", "[init]") {
  TempDir tmp;
  std::ofstream(tmp.path() / "plain-file") << "x";
  const Run run = init({(tmp.path() / "plain-file" / "agent").string()});
  CHECK(run.code == 1);
  CHECK(contains(run.err, "cannot create directory " + (tmp.path() / "plain-file").string()));
}

TEST_CASE("gantry init writes a commented manifest entry for each bundled server", "[init]") {
  TempDir tmp;
  REQUIRE(init({(tmp.path() / "agent").string()}).code == 0);
  const auto manifest = slurp(tmp.path() / "agent" / "mcp.toml");
  CHECK(contains(manifest, "# command = \"gantry-workspace\"\n"));
  CHECK(contains(manifest, "# command = \"gantry-fetch\"\n"));
  const toml::table parsed = toml::parse(manifest);
  CHECK(parsed.empty());
}
