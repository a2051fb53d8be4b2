// The Discord Gateway and REST parsers (discord/discord_api.h): any frame parses or fails
// with a message, and a dispatch's data goes through the message mapping the channel uses.

#include <set>
#include <string>

#include "discord_api.h"
#include "fuzz_support.h"

namespace {

namespace discord = gantry::discord;

void dispatch(const discord::Frame& frame) {
  (void)discord::helloInterval(frame);
  (void)discord::parseReady(frame);
  (void)discord::invalidSessionResumable(frame);
  const auto message = discord::parseMessage(frame.data);
  if (!message.isOk()) return;
  static const std::set<std::string> kAllowed = {"80351110224678912"};
  (void)discord::admit(message.value(), kAllowed, "1000000000000000001");
  for (const auto& attachment : message.value().attachments) (void)discord::isImage(attachment);
  (void)discord::toInbound(message.value());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = gantry::fuzz::asText(data, size);
  const auto frame = discord::parseFrame(text);
  if (frame.isOk()) {
    dispatch(frame.value());
  } else {
    gantry::fuzz::require(!frame.status().message().empty(), "a refused frame says why");
  }
  (void)discord::parseGatewayBot(text);
  (void)discord::parseMessageId(text);
  (void)discord::parseRateLimit(text);
  (void)discord::errorMessage(text);
  return 0;
}
