// The Telegram Bot API reply and update parsers (telegram/telegram_api.h): any getUpdates
// body is classified, and its result parses into updates or fails with a message.

#include <string>
#include <vector>

#include "fuzz_support.h"
#include "telegram_api.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto body = gantry::fuzz::asText(data, size);
  const auto reply = gantry::telegram::parseReply(200, body);
  (void)gantry::telegram::describe("getUpdates", reply);
  for (const auto json : {std::string_view(reply.result_json), body}) {
    std::vector<gantry::telegram::Update> updates;
    std::string err;
    if (!gantry::telegram::parseUpdates(json, &updates, &err)) {
      gantry::fuzz::require(!err.empty(), "a refused update list says why");
    }
    for (const auto& update : updates) (void)gantry::telegram::mimeForPath(update.photo_file_id);
    (void)gantry::telegram::messageIdOf(json);
    (void)gantry::telegram::fileInfoOf(json);
  }
  (void)gantry::telegram::parseReply(429, body);
  return 0;
}
