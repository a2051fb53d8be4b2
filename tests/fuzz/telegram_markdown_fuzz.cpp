// Telegram's markdown → HTML renderer (telegram/telegram_api.h): any model text renders,
// and splitting it into parts renders each part on its own.

#include "fuzz_support.h"
#include "telegram_api.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto markdown = gantry::fuzz::asText(data, size);
  const auto html = gantry::telegram::renderHtml(markdown);
  (void)gantry::telegram::visibleLength(html);
  (void)gantry::telegram::escapeHtml(markdown);
  for (const auto& part : gantry::telegram::renderParts(markdown, 64)) {
    gantry::fuzz::require(!part.html.empty() || !part.markdown.empty(), "a part is not empty");
    (void)gantry::telegram::visibleLength(part.html);
  }
  return 0;
}
