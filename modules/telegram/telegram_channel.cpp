#include "telegram_channel.h"

#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>
#include <Poco/Net/StringPartSource.h>
#include <Poco/StreamCopier.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>
#include <thread>

#include "gantry/guard.h"
#include "gantry/text/trim.h"
#include "poll_pacer.h"

namespace gantry::telegram {
namespace {

constexpr int kCallTimeoutSeconds = 60;
constexpr int kCommandsTimeoutSeconds = 10;
constexpr std::string_view kOffsetKey = "offset";

std::string toBase64(const std::string& bytes) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out);
  encoder.rdbuf()->setLineLength(0);
  encoder << bytes;
  encoder.close();
  return out.str();
}

std::string fromBase64(const std::string& text) {
  std::istringstream in(text);
  Poco::Base64Decoder decoder(in);
  std::string bytes;
  Poco::StreamCopier::copyToString(decoder, bytes);
  return bytes;
}

// Image bytes and MIME type from data_base64 or a data: URL.
bool imageBytes(const Image& image, std::string* bytes, std::string* mime) {
  if (!image.data_base64.empty()) {
    *bytes = fromBase64(image.data_base64);
    *mime = image.mime_type.empty() ? "image/jpeg" : image.mime_type;
    return true;
  }
  const std::string& url = image.url;
  auto comma = url.find(',');
  if (url.rfind("data:", 0) != 0 || comma == std::string::npos) return false;
  std::string header = url.substr(5, comma - 5);
  *mime = header.substr(0, header.find(';'));
  *bytes = fromBase64(url.substr(comma + 1));
  return true;
}

Reply networkFault(const HttpReply& http) {
  Reply reply;
  reply.outcome = Outcome::kTransient;
  reply.description = "network error: " + http.error;
  return reply;
}

bool readErrorReporting(Host& host, Options* options, std::string* err) {
  std::string mode = host.config("TELEGRAM_ERROR_REPORTING").value_or("off");
  if (mode == "off") return true;
  if (mode != "error" && mode != "warn") {
    *err = "TELEGRAM_ERROR_REPORTING: \"" + mode + "\" is not one of: off, error, warn";
    return false;
  }
  std::string users = host.config("TELEGRAM_ALLOWED_USERS").value_or("");
  options->reports.chat_id = std::string(text::trim(users.substr(0, users.find(','))));
  options->reports.min_level = mode == "warn" ? LogLevel::kWarn : LogLevel::kError;
  return true;
}

// A positive decimal integer, or 0.
int positiveInt(const std::optional<std::string>& text) {
  int value = 0;
  if (!text) return 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  return ec == std::errc() && end == text->data() + text->size() && value > 0 ? value : 0;
}

// `gantry status` calls a channel failing after 3 heartbeat periods without a good receive:
// a long poll held at most one period keeps an idle channel from looking failing.
int pollTimeoutFor(const std::optional<std::string>& heartbeat_seconds) {
  constexpr int kTelegramPollSeconds = 50;
  int period = positiveInt(heartbeat_seconds);
  return period > 0 ? std::min(period, kTelegramPollSeconds) : kTelegramPollSeconds;
}

bool readBackoff(Host& host, Options* options, std::string* err) {
  auto text = host.config("TELEGRAM_BACKOFF_MS");
  if (!text || text->empty()) return true;
  int ms = positiveInt(text);
  if (ms == 0) {
    *err = "TELEGRAM_BACKOFF_MS: \"" + *text + "\" is not a positive number of milliseconds";
    return false;
  }
  options->backoff_initial = std::chrono::milliseconds(ms);
  options->backoff_max = std::max(options->backoff_max, options->backoff_initial);
  return true;
}

}  // namespace

bool optionsFromHost(Host& host, Options* options, std::string* err) {
  options->token = host.config("TELEGRAM_BOT_TOKEN").value_or("");
  if (options->token.empty()) {
    *err = "TELEGRAM_BOT_TOKEN is not set: create a bot with @BotFather and set its token";
    return false;
  }
  if (!parseAllowlist(host.config("TELEGRAM_ALLOWED_USERS").value_or(""), &options->allowed_users,
                      err)) {
    return false;
  }
  options->api_base = host.config("TELEGRAM_API_BASE").value_or("https://api.telegram.org");
  if (options->api_base.empty()) options->api_base = "https://api.telegram.org";
  if (!BotHttp(options->api_base, "").ok()) {
    *err = "TELEGRAM_API_BASE: \"" + options->api_base + "\" is not an http(s) URL";
    return false;
  }
  options->poll_timeout_seconds = pollTimeoutFor(host.config("HEARTBEAT_SECONDS"));
  return readBackoff(host, options, err) && readErrorReporting(host, options, err);
}

TelegramChannel::TelegramChannel(Host& host, Options options)
    : host_(host), options_(std::move(options)), http_(options_.api_base, options_.token) {}

ChannelCaps TelegramChannel::caps() const noexcept {
  ChannelCaps caps;
  caps.max_message_chars = kMaxMessageChars;
  caps.can_edit = true;
  return caps;
}

// ---- receive ------------------------------------------------------------------------

Status TelegramChannel::run(InboundSink& sink) noexcept {
  return guard("telegram: run", [&] { return receiveLoop(sink); });
}

void TelegramChannel::stop() noexcept {
  stop_ = true;
  poll_slot_.abort();
  std::lock_guard lock(pause_mutex_);
  pause_wake_.notify_all();
}

bool TelegramChannel::stopRequested() const { return stop_ || host_.stopping(); }

void TelegramChannel::pause(std::chrono::milliseconds delay) {
  std::unique_lock lock(pause_mutex_);
  pause_wake_.wait_for(lock, delay, [this] { return stopRequested(); });
}

std::int64_t TelegramChannel::loadOffset() {
  auto stored = host_.stateGet(kOffsetKey);
  if (!stored) return 0;
  try {
    return std::stoll(*stored);
  } catch (const std::exception&) {
    host_.log(LogLevel::kWarn,
              "telegram: stored offset is unreadable; starting from the queue head",
              {{"offset", *stored}});
    return 0;
  }
}

void TelegramChannel::saveOffset(std::int64_t offset) {
  Status saved = host_.stateSet(kOffsetKey, std::to_string(offset));
  if (!saved.isOk()) {
    host_.log(LogLevel::kError, "telegram: could not persist the update offset",
              {{"error", saved.message()}});
  }
}

// One getUpdates after another. The offset is persisted right after a batch is handed to
// the sink (which records its messages first), and the next getUpdates confirms it to
// Telegram: a restart resumes after the last handed-over update and never sees it again.
Status TelegramChannel::receiveLoop(InboundSink& sink) {
  registerCommands();
  std::int64_t offset = loadOffset();
  auto backoff = options_.backoff_initial;
  PollPacer pacer(std::chrono::seconds(options_.poll_timeout_seconds), options_.idle_pause_first,
                  options_.idle_pause_max);
  while (!stopRequested()) {
    auto started = std::chrono::steady_clock::now();
    HttpReply http =
        http_.postJson("getUpdates", getUpdatesBody(offset, options_.poll_timeout_seconds),
                       options_.poll_timeout_seconds + 15, &poll_slot_);
    if (stopRequested()) break;
    Reply reply = http.status == 0 ? networkFault(http) : parseReply(http.status, http.body);
    if (reply.outcome != Outcome::kOk) {
      if (Status failed = waitAfterFailure(reply, &backoff); !failed.isOk()) return failed;
      continue;
    }
    backoff = options_.backoff_initial;
    sink.onReceiveOk();
    std::size_t updates = 0;
    Status handled = handleBatch(reply.result_json, sink, &offset, &updates);
    if (!handled.isOk()) return handled;
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    if (auto wait = pacer.after(elapsed, updates); wait.count() > 0) pause(wait);
  }
  return Status::ok();
}

void TelegramChannel::offerCommands(const std::vector<ChatCommand>& commands) noexcept {
  commands_ = commands;
}

// The host's slash commands as the bot's command menu, once at start. One attempt: a menu
// that could not be set is a warning, never a reason to delay or stop receiving.
void TelegramChannel::registerCommands() {
  std::string body = setMyCommandsBody(commands_);
  if (body.empty()) return;
  HttpReply http = http_.postJson("setMyCommands", body, kCommandsTimeoutSeconds, &poll_slot_);
  Reply reply = http.status == 0 ? networkFault(http) : parseReply(http.status, http.body);
  if (reply.outcome != Outcome::kOk) {
    host_.log(LogLevel::kWarn, "telegram: command menu not set",
              {{"error", describe("setMyCommands", reply)}});
    return;
  }
  host_.log(LogLevel::kInfo, "telegram: command menu set", {});
}

// The batch's messages are handed over together, so a backlog (what was sent while gantry
// was stopped) is one turn where the host joins bubbles.
Status TelegramChannel::handleBatch(const std::string& result_json, InboundSink& sink,
                                    std::int64_t* offset, std::size_t* handled) {
  std::vector<Update> updates;
  std::string err;
  if (!parseUpdates(result_json, &updates, &err)) return Status::error(err);
  *handled = updates.size();
  if (updates.empty()) return Status::ok();
  std::vector<InboundMessage> messages;
  for (const Update& update : updates) {
    if (auto message = accepted(update)) messages.push_back(std::move(*message));
  }
  if (!messages.empty()) sink.onMessages(std::move(messages));
  *offset = updates.back().update_id + 1;
  saveOffset(*offset);
  return Status::ok();
}

// 429 waits retry_after; 5xx, network faults and 409 back off (doubling up to the cap): a
// 409 means another instance polls the same token, and this one takes over once it stops.
// 401 and other errors end the receive loop with the reason.
Status TelegramChannel::waitAfterFailure(const Reply& reply, std::chrono::milliseconds* backoff) {
  std::string what = describe("getUpdates", reply);
  if (reply.outcome == Outcome::kRetryAfter) {
    host_.log(LogLevel::kWarn, what, {{"retry_after", std::to_string(reply.retry_after)}});
    pause(std::chrono::seconds(std::clamp(reply.retry_after, 1, options_.max_retry_after_seconds)));
    return Status::ok();
  }
  if (reply.outcome != Outcome::kTransient && reply.outcome != Outcome::kConflict) {
    host_.log(LogLevel::kError, what);
    return Status::error(what);
  }
  host_.log(LogLevel::kWarn, what + "; retrying",
            {{"backoff_ms", std::to_string(backoff->count())}});
  pause(*backoff);
  *backoff = std::min(*backoff * 2, options_.backoff_max);
  return Status::ok();
}

std::optional<InboundMessage> TelegramChannel::accepted(const Update& update) {
  if (!update.has_message) return std::nullopt;
  if (update.chat_type != "private") {
    host_.log(LogLevel::kInfo, "telegram: ignored a message outside a private chat",
              {{"chat_id", update.message.chat_id}, {"chat_type", update.chat_type}});
    return std::nullopt;
  }
  if (options_.allowed_users.count(update.sender_id) == 0) {
    host_.log(
        LogLevel::kWarn, "telegram: dropped a message from a sender not in TELEGRAM_ALLOWED_USERS",
        {{"sender_id", update.message.sender_id}, {"sender_name", update.message.sender_name}});
    return std::nullopt;
  }
  InboundMessage message = update.message;
  if (!update.photo_file_id.empty()) attachPhoto(update, &message);
  if (message.text.empty() && message.images.empty()) {
    host_.log(LogLevel::kDebug, "telegram: ignored a message without text or photo",
              {{"chat_id", message.chat_id}, {"message_id", message.message_id}});
    return std::nullopt;
  }
  return message;
}

void TelegramChannel::attachPhoto(const Update& update, InboundMessage* message) {
  auto skip = [&](const std::string& why) {
    host_.log(LogLevel::kWarn, "telegram: photo not attached: " + why,
              {{"chat_id", message->chat_id}, {"message_id", message->message_id}});
  };
  std::size_t cap = options_.max_photo_bytes;
  if (update.photo_size > static_cast<std::int64_t>(cap)) return skip("larger than the size cap");
  Reply reply = callJson("getFile", getFileBody(update.photo_file_id));
  std::optional<FileInfo> file;
  if (reply.outcome == Outcome::kOk) file = fileInfoOf(reply.result_json);
  if (!file) return skip(describe("getFile", reply));
  if (file->file_size > static_cast<std::int64_t>(cap)) return skip("larger than the size cap");
  HttpReply bytes = http_.download(file->file_path, cap, kCallTimeoutSeconds);
  if (bytes.status != 200) {
    return skip(bytes.status == 0 ? bytes.error : "HTTP " + std::to_string(bytes.status));
  }
  message->images.push_back({mimeForPath(file->file_path), toBase64(bytes.body), ""});
}

// ---- send ---------------------------------------------------------------------------

// Runs one Bot API call until it succeeds or fails for good: 429 waits retry_after (a
// reply is delayed, never dropped), 5xx and network faults back off a few times.
Reply TelegramChannel::call(std::string_view method, const Attempt& attempt) {
  auto backoff = options_.backoff_initial;
  int transient = 0;
  int waits = 0;
  while (true) {
    HttpReply http = attempt();
    Reply reply = http.status == 0 ? networkFault(http) : parseReply(http.status, http.body);
    if (reply.outcome == Outcome::kRetryAfter && ++waits <= options_.rate_limit_waits) {
      int seconds = std::clamp(reply.retry_after, 1, options_.max_retry_after_seconds);
      host_.log(LogLevel::kInfo, "telegram: rate limited; waiting",
                {{"method", std::string(method)}, {"retry_after", std::to_string(seconds)}});
      std::this_thread::sleep_for(std::chrono::seconds(seconds));
      continue;
    }
    if (reply.outcome == Outcome::kTransient && ++transient < options_.transient_attempts) {
      host_.log(LogLevel::kWarn, describe(method, reply) + "; retrying",
                {{"backoff_ms", std::to_string(backoff.count())}});
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, options_.backoff_max);
      continue;
    }
    return reply;
  }
}

Reply TelegramChannel::callJson(std::string_view method, const std::string& body) {
  return call(method, [&] { return http_.postJson(method, body, kCallTimeoutSeconds); });
}

Status TelegramChannel::statusOf(std::string_view method, const Reply& reply) {
  if (reply.outcome == Outcome::kOk || reply.outcome == Outcome::kNotModified) return Status::ok();
  std::string what = describe(method, reply);
  bool retry = reply.outcome == Outcome::kTransient || reply.outcome == Outcome::kRetryAfter;
  return retry ? Status::retry(what) : Status::error(what);
}

Result<std::string> TelegramChannel::sendPart(const std::string& chat_id, const Part& part) {
  Reply reply = callJson("sendMessage", sendMessageBody(chat_id, part.html, true));
  if (reply.outcome == Outcome::kEntities) {
    host_.log(LogLevel::kWarn, "telegram: HTML rejected; resending as plain text",
              {{"error", reply.description}});
    reply = callJson("sendMessage", sendMessageBody(chat_id, part.markdown, false));
  }
  if (reply.outcome != Outcome::kOk) return statusOf("sendMessage", reply);
  return messageIdOf(reply.result_json);
}

Result<std::string> TelegramChannel::send(const std::string& chat_id,
                                          std::string_view text) noexcept {
  return guard("telegram: sendMessage", [&]() -> Result<std::string> {
    std::vector<Part> parts = renderParts(text);
    if (parts.empty()) return Status::error("telegram: sendMessage: empty text");
    std::string last;
    for (const Part& part : parts) {
      Result<std::string> sent = sendPart(chat_id, part);
      if (!sent.isOk()) return sent;
      last = sent.value();
    }
    return last;
  });
}

Status TelegramChannel::editPart(const std::string& chat_id, const std::string& message_id,
                                 const Part& part) {
  Reply reply = callJson("editMessageText", editMessageBody(chat_id, message_id, part.html, true));
  if (reply.outcome == Outcome::kEntities) {
    reply = callJson("editMessageText", editMessageBody(chat_id, message_id, part.markdown, false));
  }
  return statusOf("editMessageText", reply);
}

Status TelegramChannel::edit(const std::string& chat_id, const std::string& message_id,
                             std::string_view text) noexcept {
  return guard("telegram: editMessageText", [&]() -> Status {
    std::vector<Part> parts = renderParts(text);
    if (parts.empty()) return Status::error("telegram: editMessageText: empty text");
    Status edited = editPart(chat_id, message_id, parts.front());
    if (!edited.isOk() || parts.size() == 1) return edited;
    return Status::error("telegram: editMessageText: the text needs " +
                         std::to_string(parts.size()) +
                         " messages; only the first was shown (split at caps().max_message_chars)");
  });
}

// One attempt: the indicator is cosmetic and repeated by the caller, so it never waits out
// a rate limit that a reply may need.
Status TelegramChannel::typing(const std::string& chat_id) noexcept {
  return guard("telegram: sendChatAction", [&] {
    HttpReply http = http_.postJson("sendChatAction", chatActionBody(chat_id), 10);
    Reply reply = http.status == 0 ? networkFault(http) : parseReply(http.status, http.body);
    return statusOf("sendChatAction", reply);
  });
}

Result<std::string> TelegramChannel::uploadPhoto(const std::string& chat_id, const Image& image,
                                                 const Part* caption, bool html) {
  std::string bytes;
  std::string mime;
  if (!imageBytes(image, &bytes, &mime)) {
    return Status::error("telegram: sendPhoto: the image has neither data nor a usable URL");
  }
  Reply reply = call("sendPhoto", [&] {
    Poco::Net::HTMLForm form(Poco::Net::HTMLForm::ENCODING_MULTIPART);
    form.set("chat_id", chat_id);
    if (caption != nullptr) form.set("caption", html ? caption->html : caption->markdown);
    if (caption != nullptr && html) form.set("parse_mode", "HTML");
    form.addPart("photo", new Poco::Net::StringPartSource(bytes, mime, "photo"));
    return http_.postForm("sendPhoto", form, kCallTimeoutSeconds);
  });
  if (reply.outcome == Outcome::kEntities && html)
    return uploadPhoto(chat_id, image, caption, false);
  if (reply.outcome != Outcome::kOk) return statusOf("sendPhoto", reply);
  return messageIdOf(reply.result_json);
}

Result<std::string> TelegramChannel::sendPhotoOnce(const std::string& chat_id, const Image& image,
                                                   const Part* caption) {
  bool by_url = !image.url.empty() && image.url.rfind("data:", 0) != 0;
  if (!by_url) return uploadPhoto(chat_id, image, caption, true);
  auto body = [&](bool html) {
    if (caption == nullptr) return sendPhotoUrlBody(chat_id, image.url, "", false);
    return sendPhotoUrlBody(chat_id, image.url, html ? caption->html : caption->markdown, html);
  };
  Reply reply = callJson("sendPhoto", body(true));
  if (reply.outcome == Outcome::kEntities) reply = callJson("sendPhoto", body(false));
  if (reply.outcome != Outcome::kOk) return statusOf("sendPhoto", reply);
  return messageIdOf(reply.result_json);
}

// A caption that does not fit Telegram's 1024 characters follows the photo as messages.
Result<std::string> TelegramChannel::sendPhoto(const std::string& chat_id, const Image& image,
                                               std::string_view caption) noexcept {
  return guard("telegram: sendPhoto", [&]() -> Result<std::string> {
    std::vector<Part> parts = renderParts(caption, kMaxCaptionChars);
    bool fits = parts.size() <= 1;
    Result<std::string> photo =
        sendPhotoOnce(chat_id, image, fits && !parts.empty() ? &parts[0] : nullptr);
    if (!photo.isOk() || fits) return photo;
    return send(chat_id, caption);
  });
}

OwnerReports TelegramChannel::ownerReports() const noexcept {
  try {
    return options_.reports;
  } catch (...) {  // out of memory copying an id: no reports rather than an exception
    return {};
  }
}

std::string TelegramChannel::quoteBlock(std::string_view lines) const noexcept {
  try {
    return expandableQuote(lines);
  } catch (...) {
    return {};
  }
}

}  // namespace gantry::telegram
