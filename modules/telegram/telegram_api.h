#pragma once
/// Pure Telegram Bot API mapping: request bodies, reply and update parsing, and the
/// markdown → Telegram-HTML renderer. No I/O; everything here is unit-tested.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/channel.h"
#include "gantry/message.h"

namespace gantry::telegram {

/// Telegram's limits: message text and photo captions, counted after entity parsing.
constexpr std::size_t kMaxMessageChars = 4096;
constexpr std::size_t kMaxCaptionChars = 1024;

/// Parses TELEGRAM_ALLOWED_USERS ("123, 456"). Fails, naming the variable, on an empty
/// list or a value that is not a numeric user id.
bool parseAllowlist(std::string_view text, std::set<std::int64_t>* ids, std::string* err);

// ---- markdown → Telegram HTML -------------------------------------------------------

/// Escapes text for Telegram HTML: &, < and > (and " for attribute values).
std::string escapeHtml(std::string_view text);

/// Renders the model's markdown as Telegram HTML: **bold**, *italic*, ~~strike~~, `code`,
/// fenced code (with language), links, bullet lists, headings as bold, > quotes (a quote
/// introduced with `**>` renders as an expandable quote). Always balanced and escaped.
std::string renderHtml(std::string_view markdown);

/// The length Telegram counts for an HTML message: UTF-16 code units of the visible text
/// (tags removed, entities decoded).
std::size_t visibleLength(std::string_view html);

/// Detail lines ('\n'-separated) as the markdown of an expandable quote, `**>` first line,
/// `>` the others, `||` at the end, which renderHtml turns into <blockquote expandable>.
std::string expandableQuote(std::string_view lines);

/// One outgoing message: its markdown source (the plain-text fallback) and its HTML.
struct Part {
  std::string markdown;
  std::string html;
};

/// Splits markdown of any length into parts whose rendered HTML shows at most limit
/// characters, cutting on paragraph/line boundaries; each part is rendered on its own so
/// no tag spans two messages. Blank input yields no parts.
std::vector<Part> renderParts(std::string_view markdown, std::size_t limit = kMaxMessageChars);

// ---- requests -----------------------------------------------------------------------

/// JSON bodies of the Bot API methods the channel calls. chat_id is sent as a number when
/// numeric, else as a string (@channelname).
std::string getUpdatesBody(std::int64_t offset, int timeout_seconds);
std::string sendMessageBody(std::string_view chat_id, std::string_view text, bool html);
std::string editMessageBody(std::string_view chat_id, std::string_view message_id,
                            std::string_view text, bool html);
std::string chatActionBody(std::string_view chat_id);
std::string getFileBody(std::string_view file_id);
std::string sendPhotoUrlBody(std::string_view chat_id, std::string_view url,
                             std::string_view caption, bool html);
/// setMyCommands' body (default scope, every language) from the host's chat commands. Names
/// or descriptions the Bot API would refuse (name 1-32 of a-z, 0-9, _; description 1-256
/// characters) are left out, so one cannot cost the whole menu; "" when none is left.
std::string setMyCommandsBody(const std::vector<ChatCommand>& commands);

// ---- replies ------------------------------------------------------------------------

/// What a Bot API reply means for the caller.
enum class Outcome {
  kOk,
  kRetryAfter,    ///< 429: wait retry_after seconds, then retry
  kTransient,     ///< 5xx or an unreadable reply: back off and retry
  kEntities,      ///< 400 can't parse entities: resend as plain text
  kNotModified,   ///< 400 message is not modified: success for an edit
  kUnauthorized,  ///< 401: bad token
  kConflict,      ///< 409: another poller or a webhook
  kFailed,        ///< any other error; retrying will not help
};

/// A parsed reply {ok, result | error_code, description, parameters.retry_after}.
struct Reply {
  Outcome outcome = Outcome::kFailed;
  int http_status = 0;
  int error_code = 0;
  std::string description;
  int retry_after = 0;
  std::string result_json;  ///< the "result" member, serialized ("" on error)
};

/// Classifies an HTTP status and body from the Bot API.
Reply parseReply(int http_status, std::string_view body);

/// "telegram: METHOD: HTTP 400 Bad Request: can't parse entities…", plus a hint where one
/// helps (401 → check TELEGRAM_BOT_TOKEN, 409 → another poller or a webhook).
std::string describe(std::string_view method, const Reply& reply);

/// message_id of a Message result, "" when absent (editMessageText may return true).
std::string messageIdOf(std::string_view result_json);

/// File.file_path and File.file_size of a getFile result.
struct FileInfo {
  std::string file_path;
  std::int64_t file_size = 0;
};
std::optional<FileInfo> fileInfoOf(std::string_view result_json);

// ---- updates ------------------------------------------------------------------------

/// The parts of an Update the channel uses (message or edited_message).
struct Update {
  std::int64_t update_id = 0;
  bool has_message = false;
  std::string chat_type;  ///< "private", "group", ...
  std::int64_t sender_id = 0;
  InboundMessage message;     ///< text is the text or the photo's caption
  std::string photo_file_id;  ///< the largest photo size, "" when none
  std::int64_t photo_size = 0;
};

/// Parses the result array of getUpdates. Fails on a malformed array; skips nothing.
bool parseUpdates(std::string_view result_json, std::vector<Update>* updates, std::string* err);

/// MIME type for a downloaded file path (jpg/jpeg, png, webp, gif), image/jpeg otherwise
/// (Telegram re-encodes photos as JPEG).
std::string mimeForPath(std::string_view file_path);

}  // namespace gantry::telegram
