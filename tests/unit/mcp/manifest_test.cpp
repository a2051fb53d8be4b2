#include "mcp/manifest.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using namespace gantry::mcp;

namespace {

/// Writes text to a fresh temp file and returns its path.
std::string writeManifest(const std::string& text) {
  static int counter = 0;
  auto path =
      std::filesystem::temp_directory_path() /
      ("gantry_manifest_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".toml");
  std::ofstream(path) << text;
  return path.string();
}

std::string errorOf(const std::string& text) {
  auto path = writeManifest(text);
  auto result = loadManifest(path);
  REQUIRE_FALSE(result.isOk());
  const auto& message = result.status().message();
  CHECK(message.rfind(path + ":", 0) == 0);
  return message.substr(path.size());
}

}  // namespace

TEST_CASE("a missing manifest means no servers", "[mcp]") {
  auto result = loadManifest("/nonexistent/gantry/mcp.toml");
  REQUIRE(result.isOk());
  CHECK_FALSE(result->found);
  CHECK(result->servers.empty());
}

TEST_CASE("every documented manifest key is read", "[mcp]") {
  auto path = writeManifest(R"(
[[server]]
name    = "garmin"
command = "garmin"
args    = ["mcp"]
env     = { GARMIN_TOKEN = "garmin-token" }
tools   = ["get_sleep", "get_*"]
exclude = ["raw_*"]
tools_prefix = "garm"
description = "Sleep and HRV"
auth_command = "garmin"
auth_args = ["login"]
policy  = "ask"
tool_policy = { delete_activity = "deny" }
download_url = "https://example.org/{tag}/garmin_{version}_{os}_{arch}.tar.gz"
download_tag = "v1.2.0"

[[server]]
name = "daemon"
url  = "http://127.0.0.1:8788/mcp"
headers = { Authorization = "Bearer daemon-token" }
)");
  auto result = loadManifest(path);
  REQUIRE(result.isOk());
  REQUIRE(result->servers.size() == 2);
  const auto& garmin = result->servers[0];
  CHECK(garmin.name == "garmin");
  CHECK(garmin.isStdio());
  CHECK(garmin.args == std::vector<std::string>{"mcp"});
  CHECK(garmin.env.at("GARMIN_TOKEN") == "garmin-token");
  CHECK(garmin.tools.size() == 2);
  CHECK(garmin.exclude == std::vector<std::string>{"raw_*"});
  CHECK(garmin.prefix() == "garm");
  CHECK(garmin.description == "Sleep and HRV");
  CHECK(garmin.auth_command == "garmin");
  CHECK(garmin.auth_args == std::vector<std::string>{"login"});
  CHECK(garmin.policy == Policy::kAsk);
  CHECK(garmin.policyFor("delete_activity") == Policy::kDeny);
  CHECK(garmin.policyFor("get_sleep") == Policy::kAsk);
  CHECK(garmin.download_tag == "v1.2.0");
  CHECK_FALSE(garmin.download_url.empty());
  const auto& daemon = result->servers[1];
  CHECK_FALSE(daemon.isStdio());
  CHECK(daemon.prefix() == "daemon");
  CHECK(daemon.headers.at("Authorization") == "Bearer daemon-token");
  CHECK(daemon.policy == Policy::kAllow);
}

TEST_CASE("manifest errors name the file, the line and the key", "[mcp]") {
  const std::pair<const char*, const char*> table[] = {
      {"[[server]]\nname = \"a\"\ncomand = \"x\"\n", ":3: comand: unknown key"},
      {"[[server]]\nname = \"a\"\ncommand = \"x\"\n[[server]]\nname = \"a\"\ncommand = \"y\"\n",
       ":5: name: duplicate server name"},
      {"[[server]]\nname = \"a\"\ncommand = \"x\"\nurl = \"http://h/mcp\"\n",
       ":4: url: server \"a\" needs exactly one of command or url"},
      {"[[server]]\nname = \"a\"\n", ":2: command: server \"a\" needs exactly one"},
      {"[[server]]\nname = \"Bad Name\"\ncommand = \"x\"\n", ":2: name: \"Bad Name\" must match"},
      {"[[server]]\nname = \"a\"\ncommand = \"x\"\ntools = [\"get_[ab\"]\n",
       ":4: tools: bad glob \"get_[ab\""},
      {"[[server]]\nname = \"a\"\ncommand = \"x\"\nexclude = [\"\"]\n", ":4: exclude: bad glob"},
      {"[[server]]\nname = \"a\"\ncommand = \"x\"\npolicy = \"maybe\"\n",
       ":4: policy: \"maybe\" is not allow, ask or deny"},
      {"[[server]]\nname = \"a\"\ncommand = \"x\"\ntool_policy = { rm = \"never\" }\n",
       ":4: tool_policy.rm: \"never\" is not allow, ask or deny"},
      {"[[server]]\nname = \"a\"\ncommand = \"x\"\nargs = \"one\"\n",
       ":4: args: must be an array of strings"},
      {"[[server]]\nname = \"a\"\ncommand = \"x\"\nenv = { A = 1 }\n",
       ":4: env.A: must be a string"},
      {"[[server]]\nname = \"a\"\nurl = \"ftp://h\"\n", ":3: url: must start with http"},
      {"[[server]]\nname = \"a\"\ncommand = \"x\"\ntools_prefix = \"a.b\"\n",
       ":4: tools_prefix: must match"},
      {"[[servers]]\nname = \"a\"\n", ":1: servers: unknown key"},
      {"[[server]]\nname = \"a\"\ncommand = \"x\"\nenv = { T = \"secret://t\" }\n",
       ":4: env.T: secret://t cannot be resolved here (no vault)"},
      {"[[server]]\nname = \"a\"\nurl = \"http://h/mcp\"\n"
       "headers = { Authorization = \"Bearer secret://t\" }\n",
       ":4: headers.Authorization: secret://t cannot be resolved here (no vault)"},
      {"[[server]]\nname = \"a\"\ncommand = \"x\"\nargs = [\"--key\", \"secret://k\"]\n",
       ":4: args: secret://k cannot be resolved here (no vault)"},
      {"[[server]]\nname = \"a\"\ncommand = \"secret://bin\"\n",
       ":3: command: holds a secret:// reference; they are resolved only in env"},
      {"[[server]]\nname = \"a\"\nurl = \"http://secret://h/mcp\"\n",
       ":3: url: secret://h cannot be resolved here (no vault)"},
      {"[[server]]\nname = \"a\"\ncommand = \"x\n", ":3: syntax:"},
  };
  for (const auto& [text, expected] : table) {
    INFO(text);
    const auto error = errorOf(text);
    CHECK_THAT(error, Catch::StartsWith(expected));
  }
}

TEST_CASE("secret:// references in env, headers, args, auth_args and url are resolved at load",
          "[mcp]") {
  gantry::config::SecretLookup secrets = [](std::string_view name) -> gantry::Result<std::string> {
    if (name == "missing") return gantry::Status::error("not in the vault");
    return "<" + std::string(name) + ">";
  };
  auto path = writeManifest(
      "[[server]]\nname = \"s\"\ncommand = \"x\"\nargs = [\"--key=secret://k\"]\n"
      "env = { T = \"secret://t\" }\nauth_args = [\"secret://a\"]\n"
      "[[server]]\nname = \"h\"\nurl = \"http://127.0.0.1:1/mcp?key=secret://u\"\n"
      "headers = { Authorization = \"Bearer secret://token\" }\n");
  auto manifest = loadManifest(path, secrets);
  REQUIRE(manifest.isOk());
  const auto& stdio = manifest->servers[0];
  CHECK(stdio.args == std::vector<std::string>{"--key=<k>"});
  CHECK(stdio.env.at("T") == "<t>");
  CHECK(stdio.auth_args == std::vector<std::string>{"<a>"});
  CHECK(manifest->servers[1].url == "http://127.0.0.1:1/mcp?key=<u>");
  CHECK(manifest->servers[1].headers.at("Authorization") == "Bearer <token>");
  auto missing = loadManifest(
      writeManifest(
          "[[server]]\nname = \"s\"\ncommand = \"x\"\nenv = { T = \"secret://missing\" }\n"),
      secrets);
  REQUIRE_FALSE(missing.isOk());
  CHECK_THAT(missing.status().message(),
             Catch::EndsWith(":4: env.T: secret://missing: not in the vault"));
}

TEST_CASE("globs match tool names with fnmatch rules", "[mcp]") {
  CHECK(globMatch("get_*", "get_hrv"));
  CHECK(globMatch("get_?rv", "get_hrv"));
  CHECK(globMatch("[gs]et_*", "set_x"));
  CHECK_FALSE(globMatch("raw_*", "get_raw"));
  CHECK(validGlob("[]a]"));
  CHECK_FALSE(validGlob("[abc"));
}
