#include "modules/loader.h"

#include <catch2/catch.hpp>
#include <map>

#include "fakes/fake_host.h"

using gantry::ModuleKind;
namespace modules = gantry::modules;

namespace {
const std::string kDir = GANTRY_BUILD_DIR "/tests/fixture_modules";

std::string loadError(const char* name, ModuleKind kind = ModuleKind::kChannel) {
  auto m = modules::load(kDir, kind, name);
  REQUIRE(!m.isOk());
  return m.status().message();
}
}  // namespace

TEST_CASE("a good module loads, checks its config and builds its channel", "[modules]") {
  auto m = modules::load(kDir, ModuleKind::kChannel, "good");
  REQUIRE(m.isOk());
  gantry::testing::FakeHost host;
  CHECK(modules::checkConfig(m.value(), host).message() ==
        "FIXTURE_REQUIRED: required by the channel module \"good\" but not set");
  host.env["FIXTURE_REQUIRED"] = "1";
  CHECK(modules::checkConfig(m.value(), host).isOk());
  auto channel = modules::createChannel(m.value(), host);
  REQUIRE(channel.isOk());
  CHECK(channel.value() != nullptr);
}

TEST_CASE("a missing module lists the modules that exist", "[modules]") {
  auto msg = loadError("nosuch");
  CHECK(msg.find("channel \"nosuch\" not found") != std::string::npos);
  CHECK(msg.find("available in " + kDir + ": badsig, factorynull, good,") != std::string::npos);
}

TEST_CASE("a module with another ABI version is refused", "[modules]") {
  CHECK(loadError("wrongabi")
            .find("has ABI version 99, this gantry has " + std::to_string(GANTRY_ABI_VERSION) +
                  " (rebuild the module)") != std::string::npos);
}

TEST_CASE("a module built with another signature is refused", "[modules]") {
  auto msg = loadError("badsig");
  const std::string abi = "abi=" + std::to_string(GANTRY_ABI_VERSION);
  CHECK(msg.find("was built as \"" + abi + ";cc=some other compiler\", this gantry as \"" + abi +
                 ";") != std::string::npos);
}

TEST_CASE("a module with a too small descriptor is refused", "[modules]") {
  CHECK(loadError("small").find("descriptor is 8 bytes") != std::string::npos);
}

TEST_CASE("a module of the wrong kind is refused", "[modules]") {
  CHECK(loadError("wrongkind").find("is a provider module, expected a channel") !=
        std::string::npos);
}

TEST_CASE("a module declaring another name is refused", "[modules]") {
  CHECK(loadError("misnamed").find("declares name \"someone_else\", expected \"misnamed\"") !=
        std::string::npos);
}

TEST_CASE("a shared object without the entry symbol is refused", "[modules]") {
  CHECK(loadError("noentry").find("does not export gantry_module_v1 (not a gantry module)") !=
        std::string::npos);
}

TEST_CASE("an invalid module name is refused before touching the disk", "[modules]") {
  CHECK(loadError("../evil").find("is not a module name") != std::string::npos);
}

TEST_CASE("a missing, null-returning or throwing factory is a clear error", "[modules]") {
  gantry::testing::FakeHost host;
  auto nofactory = modules::load(kDir, ModuleKind::kChannel, "nofactory");
  REQUIRE(nofactory.isOk());
  CHECK(modules::createChannel(nofactory.value(), host)
            .status()
            .message()
            .find("has no channel factory") != std::string::npos);

  auto null = modules::load(kDir, ModuleKind::kChannel, "factorynull");
  REQUIRE(null.isOk());
  CHECK(modules::createChannel(null.value(), host).status().message() ==
        "channel factorynull: FIXTURE_TOKEN is not valid");

  auto throws = modules::load(kDir, ModuleKind::kChannel, "throws");
  REQUIRE(throws.isOk());
  CHECK(modules::createChannel(throws.value(), host).status().message() ==
        "channel throws: factory threw: fixture exploded");
}

TEST_CASE("a provider module is found by kind and name", "[modules]") {
  auto m = modules::load(kDir, ModuleKind::kProvider, "good");
  REQUIRE(m.isOk());
  gantry::testing::FakeHost host;
  auto provider = modules::createProvider(m.value(), host);
  REQUIRE(provider.isOk());
  CHECK(provider.value()->model() == "fixture");
}

TEST_CASE("the module directory defaults to the configured value", "[modules]") {
  CHECK(modules::moduleDir("/opt/x") == "/opt/x");
}

TEST_CASE("a module key set to a secret:// value fails the config check naming it", "[modules]") {
  auto m = modules::load(kDir, ModuleKind::kChannel, "good");
  REQUIRE(m.isOk());
  gantry::testing::FakeHost host;
  host.env["FIXTURE_REQUIRED"] = "secret://fixture";
  CHECK(modules::checkConfig(m.value(), host)
            .message()
            .rfind("FIXTURE_REQUIRED: \"secret://fixture\" holds a secret:// reference", 0) == 0);
}

TEST_CASE("a key the environment leaves unset reads as the module's declared default",
          "[modules]") {
  auto m = modules::load(kDir, ModuleKind::kChannel, "good");
  REQUIRE(m.isOk());
  std::map<std::string, std::string, std::less<>> env{{"FIXTURE_REQUIRED", "set"}};
  auto lookup = modules::withDeclaredDefaults(
      [&env](std::string_view key) -> std::optional<std::string> {
        auto found = env.find(key);
        if (found == env.end()) return std::nullopt;
        return found->second;
      },
      {m.value()});
  CHECK(lookup("FIXTURE_DEFAULTED") == "declared");
  CHECK(lookup("FIXTURE_REQUIRED") == "set");
  CHECK(lookup("UNDECLARED") == std::nullopt);
  env["FIXTURE_DEFAULTED"] = "from env";
  CHECK(lookup("FIXTURE_DEFAULTED") == "from env");
}

TEST_CASE("a channel that overrides only what it must gets the boundary's defaults", "[modules]") {
  auto m = modules::load(kDir, ModuleKind::kChannel, "good");
  REQUIRE(m.isOk());
  gantry::testing::FakeHost host;
  host.env["FIXTURE_REQUIRED"] = "1";
  auto channel = modules::createChannel(m.value(), host);
  REQUIRE(channel.isOk());
  gantry::Channel& c = *channel.value();
  CHECK(c.caps().replays_inbox);
  CHECK_FALSE(c.streamText("1", "x", true).isOk());
  CHECK(c.ownerReports().chat_id.empty());
  CHECK(c.quoteBlock("a: 1\nb: 2") == "> a: 1\n> b: 2");
}
