// channel_stdio.so: the descriptor and factory.
#include <unistd.h>

#include "gantry/abi.h"
#include "stdio_channel.h"

namespace {

// The REPL talks to a local model server unless LLM_BASE_URL says otherwise (DESIGN 3).
constexpr gantry::ConfigKey kKeys[] = {{"STDIO_FORMAT", "text", false, false},
                                       {"LLM_BASE_URL", "http://127.0.0.1:11434/v1", false, false},
                                       {nullptr, nullptr, false, false}};

gantry::Channel* create(gantry::Host& host, std::string* err) noexcept {
  std::string format = host.config("STDIO_FORMAT").value_or("text");
  if (format != "text" && format != "jsonl") {
    *err = "STDIO_FORMAT: \"" + format + "\" is not one of: text, jsonl";
    return nullptr;
  }
  return new (std::nothrow) gantry::stdio::StdioChannel(host, format == "jsonl", ::isatty(0) == 1);
}

const gantry_module_desc kDesc = {GANTRY_ABI_VERSION,
                                  sizeof(gantry_module_desc),
                                  GANTRY_BUILD_SIGNATURE,
                                  gantry::ModuleKind::kChannel,
                                  "stdio",
                                  "0.1.0",
                                  kKeys,
                                  create,
                                  nullptr};

}  // namespace

GANTRY_DECLARE_MODULE(kDesc)
