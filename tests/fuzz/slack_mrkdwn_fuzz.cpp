// Slack's markdown → mrkdwn renderer (slack/slack_api.h): any model text renders, and no raw
// '<' or '>' from the text survives outside a link the renderer made.

#include "fuzz_support.h"
#include "slack_api.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto markdown = gantry::fuzz::asText(data, size);
  (void)gantry::slack::markdownToMrkdwn(markdown);
  const auto escaped = gantry::slack::escapeText(markdown);
  gantry::fuzz::require(escaped.find_first_of("<>") == std::string::npos,
                        "escaped text holds no < or >");
  return 0;
}
