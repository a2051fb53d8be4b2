// The printed-call parser (tools/hardening.h): any reply text either is ordinary text or a
// call whose arguments are a compact JSON object.

#include "fuzz_support.h"
#include "tools/hardening.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = gantry::fuzz::asText(data, size);
  (void)gantry::tools::validJsonObject(text);
  if (auto call = gantry::tools::parsePrintedCall(text)) {
    gantry::fuzz::require(!call->name.empty(), "a printed call has a name");
    gantry::fuzz::require(gantry::tools::validJsonObject(call->arguments),
                          "a printed call's arguments are a JSON object");
  }
  return 0;
}
