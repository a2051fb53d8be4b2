// provider_openai.so: the descriptor and factory of the OpenAI-compatible provider.

#include "gantry/abi.h"
#include "openai_provider.h"

namespace {

const gantry::ConfigKey kConfig[] = {
    {"LLM_BASE_URL", nullptr, true, false},
    {"LLM_API_KEY", nullptr, false, true},  // required unless the base URL is loopback
    {"LLM_MODEL", nullptr, true, false},
    {"LLM_MAX_TOKENS", "4096", false, false},
    {"LLM_TIMEOUT_SECONDS", "300", false, false},
    {nullptr, nullptr, false, false},
};

gantry::Provider* createProvider(gantry::Host& host, std::string* err) noexcept {
  return gantry::openai::createOpenAiProvider(host, err);
}

const gantry_module_desc kDescriptor = {
    GANTRY_ABI_VERSION,
    sizeof(gantry_module_desc),
    GANTRY_BUILD_SIGNATURE,
    gantry::ModuleKind::kProvider,
    "openai",
    "0.1.0",
    kConfig,
    nullptr,
    createProvider,
};

}  // namespace

GANTRY_DECLARE_MODULE(kDescriptor)
