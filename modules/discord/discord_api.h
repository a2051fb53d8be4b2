#pragma once
/// Pure mapping between Discord's Gateway/REST JSON and gantry's values. No I/O, no clocks;
/// every function is thread-safe and reports malformed input as a Status.

#include <Poco/Dynamic/Var.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/message.h"
#include "gantry/status.h"

namespace gantry::discord {

/// Gateway intents this channel needs: DMs and their text.
constexpr int kIntentDirectMessages = 1 << 12;
constexpr int kIntentMessageContent = 1 << 15;
constexpr int kIntents = kIntentDirectMessages | kIntentMessageContent;

/// Discord counts message length in characters; 2000 is the create/edit limit.
constexpr std::size_t kMaxMessageChars = 2000;

/// Gateway opcodes (Discord "Opcodes and Status Codes").
enum class Op : int {
  kDispatch = 0,
  kHeartbeat = 1,
  kIdentify = 2,
  kResume = 6,
  kReconnect = 7,
  kInvalidSession = 9,
  kHello = 10,
  kHeartbeatAck = 11,
};

/// One Gateway payload: {"op", "d", "s", "t"}.
struct Frame {
  int op = -1;
  std::optional<std::int64_t> seq;  ///< "s": set on dispatches
  std::string type;                 ///< "t": dispatch event name
  Poco::Dynamic::Var data;          ///< "d"
};

/// Parses a Gateway text frame; an error when it is not a JSON object with an integer op.
Result<Frame> parseFrame(std::string_view text);

/// {"op":1,"d":seq|null}
std::string heartbeatPayload(std::optional<std::int64_t> seq);
/// {"op":2,"d":{token, intents, properties{os,browser,device}}}
std::string identifyPayload(const std::string& token, int intents);
/// {"op":6,"d":{token, session_id, seq}}
std::string resumePayload(const std::string& token, const std::string& session_id,
                          std::int64_t seq);

/// heartbeat_interval (ms) of a Hello frame; an error when absent or not positive.
Result<std::int64_t> helloInterval(const Frame& frame);

/// What READY tells us that a later Resume needs.
struct ReadyInfo {
  std::string session_id;
  std::string resume_gateway_url;
  std::string user_id;  ///< the bot's own user id
};
Result<ReadyInfo> parseReady(const Frame& frame);

/// The "d" of op 9: true when the session may be resumed.
bool invalidSessionResumable(const Frame& frame);

struct Attachment {
  std::string url;
  std::string content_type;
  std::string filename;
  std::int64_t size = 0;
};

/// The fields of a Discord message object the channel uses.
struct DiscordMessage {
  std::string id;
  std::string channel_id;
  std::string guild_id;  ///< empty in DMs
  std::string author_id;
  std::string author_name;  ///< global_name, else username
  bool author_bot = false;
  std::string content;
  std::vector<Attachment> attachments;
};

/// Maps the "d" of MESSAGE_CREATE; an error when id, channel_id or author.id is missing.
Result<DiscordMessage> parseMessage(const Poco::Dynamic::Var& data);

/// Why a message is or is not handed to the core.
enum class Admission { kAccept, kNotDirect, kSelf, kBot, kStranger };

/// Only DMs (no guild_id) from allowlisted humans other than ourselves are accepted.
Admission admit(const DiscordMessage& message, const std::set<std::string>& allowed,
                const std::string& self_id);

/// True for attachments whose content type is image/*.
bool isImage(const Attachment& attachment);

/// The inbound value for an accepted message; image attachments become URL images.
InboundMessage toInbound(const DiscordMessage& message);

/// Parses DISCORD_ALLOWED_USERS (snowflakes separated by commas or spaces); an error naming
/// the variable when it is empty or holds something that is not a snowflake.
Result<std::set<std::string>> parseAllowedUsers(std::string_view text);

/// What to do after the Gateway closed the socket with a code.
enum class CloseAction { kResume, kIdentify, kFatal };
CloseAction closeAction(int code);
/// A one-line explanation of a fatal close code, naming what to check.
std::string fatalCloseMessage(int code);

/// The Gateway URL with "?v=10&encoding=json" (any query of the base replaced).
std::string connectUrl(std::string_view base);
/// The "url" of GET /gateway/bot.
Result<std::string> parseGatewayBot(std::string_view body);

/// Body of create/edit message: {"content", "allowed_mentions":{"parse":[]}}.
std::string messageBody(std::string_view text);
/// Body of a message whose embed shows an image by URL, with the caption as content.
std::string photoEmbedBody(const std::string& url, std::string_view caption);
/// payload_json of a multipart upload of one file, with the caption as content.
std::string photoUploadPayload(const std::string& filename, std::string_view caption);
/// The "id" of a message object.
Result<std::string> parseMessageId(std::string_view body);

/// A 429 body: {"retry_after": seconds (float), "global": bool}.
struct RateLimitBody {
  double retry_after = 0;
  bool global = false;
};
std::optional<RateLimitBody> parseRateLimit(std::string_view body);
/// The "message" of a REST error body, or "" when there is none.
std::string errorMessage(std::string_view body);

}  // namespace gantry::discord
