#include "openai_config.h"

#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <memory>

#include "fakes/fake_host.h"
#include "gantry/abi.h"
#include "openai_provider.h"

using gantry::testing::FakeHost;

namespace {

std::string factoryError(FakeHost& host) {
  std::string err;
  std::unique_ptr<gantry::Provider> provider(gantry::openai::createOpenAiProvider(host, &err));
  CHECK_FALSE(provider);
  return err;
}

void configure(FakeHost& host, const std::string& url) {
  host.env = {{"LLM_BASE_URL", url}, {"LLM_MODEL", "m"}};
}

}  // namespace

TEST_CASE("loopback hosts are recognised", "[openai]") {
  using gantry::openai::isLoopbackHost;
  CHECK(isLoopbackHost("127.0.0.1"));
  CHECK(isLoopbackHost("127.8.9.10"));
  CHECK(isLoopbackHost("::1"));
  CHECK(isLoopbackHost("localhost"));
  CHECK(isLoopbackHost("LOCALHOST"));
  CHECK_FALSE(isLoopbackHost("10.0.0.1"));
  CHECK_FALSE(isLoopbackHost("api.openai.com"));
  CHECK_FALSE(isLoopbackHost("localhost.example.com"));
  CHECK_FALSE(isLoopbackHost("128.0.0.1"));
}

TEST_CASE("a missing LLM_API_KEY is accepted for loopback base URLs", "[openai]") {
  for (const char* url :
       {"http://127.0.0.1:11434/v1", "http://localhost:8080/v1/", "http://[::1]:8080/v1"}) {
    FakeHost host;
    configure(host, url);
    auto config = gantry::openai::readConfig(host);
    INFO(url);
    REQUIRE(config.isOk());
    CHECK(config->api_key.empty());
  }
  FakeHost local;
  configure(local, "http://localhost:8080/v1/");
  auto config = gantry::openai::readConfig(local);
  REQUIRE(config.isOk());
  CHECK(config->endpoint == "http://localhost:8080/v1/chat/completions");
  CHECK(config->max_tokens == 4096);
  CHECK(config->timeout_seconds == 300);
}

TEST_CASE("a missing LLM_API_KEY is refused for a non-loopback host", "[openai]") {
  FakeHost host;
  configure(host, "https://api.example.com/v1");
  CHECK(factoryError(host) ==
        "openai: LLM_API_KEY is required for the non-loopback host \"api.example.com\" of "
        "LLM_BASE_URL");
  host.env["LLM_API_KEY"] = "sk-test";
  std::string err;
  std::unique_ptr<gantry::Provider> provider(gantry::openai::createOpenAiProvider(host, &err));
  CHECK(provider);
  CHECK(err.empty());
}

TEST_CASE("bad settings fail the factory with a line naming the variable", "[openai]") {
  FakeHost host;
  configure(host, "http://127.0.0.1:1/v1");
  host.env.erase("LLM_BASE_URL");
  CHECK(factoryError(host) == "openai: LLM_BASE_URL is required (e.g. http://127.0.0.1:11434/v1)");
  configure(host, "ftp://example.com");
  CHECK(factoryError(host) ==
        "openai: LLM_BASE_URL \"ftp://example.com\" is not an http:// or https:// URL");
  configure(host, "http://127.0.0.1:1/v1");
  host.env.erase("LLM_MODEL");
  CHECK(factoryError(host) == "openai: LLM_MODEL is required");
  configure(host, "http://127.0.0.1:1/v1");
  host.env["LLM_MAX_TOKENS"] = "-1";
  CHECK(factoryError(host) ==
        "openai: LLM_MAX_TOKENS must be an integer from 0 to 10000000, got \"-1\"");
  configure(host, "http://127.0.0.1:1/v1");
  host.env["LLM_TIMEOUT_SECONDS"] = "soon";
  CHECK(factoryError(host) ==
        "openai: LLM_TIMEOUT_SECONDS must be an integer from 1 to 86400, got \"soon\"");
}

TEST_CASE("the built module describes itself and its factory reports config errors", "[openai]") {
  std::string path = std::string(GANTRY_BUILD_DIR) + "/modules/provider_openai.so";
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(handle != nullptr);
  auto entry = reinterpret_cast<gantry_module_entry_fn>(dlsym(handle, GANTRY_MODULE_ENTRY_NAME));
  REQUIRE(entry != nullptr);
  const gantry_module_desc* desc = entry();
  CHECK(desc->abi_version == GANTRY_ABI_VERSION);
  CHECK(std::string(desc->build_signature) == GANTRY_BUILD_SIGNATURE);
  CHECK(desc->kind == gantry::ModuleKind::kProvider);
  CHECK(std::string(desc->name) == "openai");
  CHECK(desc->create_channel == nullptr);
  FakeHost host;
  configure(host, "https://api.example.com/v1");
  std::string err;
  CHECK(desc->create_provider(host, &err) == nullptr);
  CHECK(err.find("LLM_API_KEY") != std::string::npos);
}
