#pragma once
/// The Slack wire format: Socket Mode envelopes, message events, Web API bodies and the
/// markdown → mrkdwn rendering. Pure: no I/O, no clocks, no threads; safe from any thread.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/message.h"
#include "gantry/status.h"

namespace gantry::slack {

/// The longest text we send in one message; Slack advises keeping text under 4,000 chars.
constexpr std::size_t kMaxMessageChars = 3900;
/// Images larger than this are not downloaded for vision.
constexpr std::size_t kMaxImageBytes = std::size_t{20} * 1024 * 1024;

/// One Socket Mode frame, as far as the connection logic needs it.
struct Envelope {
  enum class Type { kHello, kDisconnect, kEventsApi, kOther } type = Type::kOther;
  std::string envelope_id;  ///< empty for hello / disconnect
  std::string reason;       ///< disconnect: refresh_requested, warning, link_disabled, ...
  int retry_attempt = 0;
  std::string payload_json;  ///< events_api: the payload object, serialized
};

/// Parses a Socket Mode text frame. Fails when the frame is not a JSON object.
Result<Envelope> parseEnvelope(std::string_view frame);

/// The acknowledgement Slack expects for an envelope: {"envelope_id": id}.
std::string ackFrame(const std::string& envelope_id);

/// A file attached to a message (only images are fetched).
struct FileRef {
  std::string id;
  std::string mimetype;
  std::string url_private;
  std::int64_t size = 0;
};

/// What the channel does with an events_api payload.
struct EventDecision {
  enum class Action { kDeliver, kIgnore, kStranger } action = Action::kIgnore;
  std::string why;             ///< ignore/stranger: a short reason for the debug log
  std::string dedupe_key;      ///< event_id (or client_msg_id / channel+ts when absent)
  InboundMessage message;      ///< kDeliver (and kStranger: sender and chat are filled)
  std::vector<FileRef> files;  ///< kDeliver: image files to download
};

/// Who may talk to the bot, and who the bot is.
struct Audience {
  std::set<std::string, std::less<>> allowed_users;  ///< member ids (U…/W…)
  std::string bot_user_id;                           ///< our own user id (from auth.test)
};

/// Maps an events_api payload: DMs (channel_type "im") of plain or file_share messages from
/// allowlisted members are delivered; bots, edits, deletions, other subtypes, other channel
/// types and our own messages are ignored; other members are strangers.
EventDecision decideEvent(std::string_view payload_json, const Audience& audience);

/// Parses SLACK_ALLOWED_USERS (comma or space separated member ids). Fails on an empty list
/// or an id that is not a member id.
Result<std::set<std::string, std::less<>>> parseAllowedUsers(std::string_view value);

/// The outcome of a Web API JSON body: ok, or the `error` code Slack reported.
struct ApiReply {
  bool ok = false;
  std::string error;  ///< e.g. invalid_auth, ratelimited, channel_not_found
  std::string body;   ///< the whole body, for the fields of each method
};

/// Parses a Web API response body. Fails when the body is not a JSON object.
Result<ApiReply> parseApiReply(std::string_view body);

/// A string member of a JSON object body ("" when absent or not a string).
std::string stringField(std::string_view body, const std::string& name);

/// Bodies of chat.postMessage and chat.update (application/json).
std::string postMessageBody(const std::string& channel, std::string_view text);
std::string updateMessageBody(const std::string& channel, const std::string& ts,
                              std::string_view text);
/// chat.postMessage with one image block showing image_url; caption is the fallback text.
std::string postImageBody(const std::string& channel, const std::string& image_url,
                          std::string_view caption);

/// Escapes the three characters Slack reserves in text: & < >.
std::string escapeText(std::string_view text);

/// Renders the markdown models write as Slack mrkdwn: **bold** → *bold*, *italic* and
/// _italic_ → _italic_, ~~strike~~ → ~strike~, [text](url) → <url|text>, # headings → bold,
/// "- " / "* " bullets → "• ", code spans and fences kept verbatim (escaped only). & < > are
/// escaped everywhere.
std::string markdownToMrkdwn(std::string_view markdown);

}  // namespace gantry::slack
