#include "slack_channel.h"

#include <Poco/Base64Encoder.h>

#include <algorithm>
#include <sstream>

#include "gantry/guard.h"
#include "gantry/text/split.h"

namespace gantry::slack {
namespace {

using std::chrono::seconds;

constexpr auto kFirstBackoff = seconds(1);
constexpr auto kMaxBackoff = seconds(60);
// How long a refreshed connection may keep delivering after its successor is up.
constexpr auto kRetireGrace = seconds(10);
constexpr std::size_t kMaxSeenEvents = 4096;

std::string base64(const std::string& bytes) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out);
  encoder.rdbuf()->setLineLength(0);
  encoder << bytes;
  encoder.close();
  return out.str();
}

Result<std::string> requiredToken(const Host& host, const char* name, const char* prefix,
                                  const char* kind) {
  auto value = host.config(name);
  if (!value || value->empty()) return Status::error(std::string(name) + " is not set");
  if (value->rfind(prefix, 0) != 0) {
    return Status::error(std::string(name) + " must be " + kind + " (" + prefix + "…)");
  }
  return *value;
}

}  // namespace

Result<Config> readConfig(const Host& host) {
  Config config;
  auto bot = requiredToken(host, "SLACK_BOT_TOKEN", "xoxb-", "a bot token");
  if (!bot.isOk()) return bot.status();
  auto app = requiredToken(host, "SLACK_APP_TOKEN", "xapp-", "an app-level token");
  if (!app.isOk()) return app.status();
  auto users = parseAllowedUsers(host.config("SLACK_ALLOWED_USERS").value_or(""));
  if (!users.isOk()) return users.status();
  config.bot_token = bot.value();
  config.app_token = app.value();
  config.allowed_users = users.value();
  if (auto base = host.config("SLACK_API_BASE"); base && !base->empty()) config.api_base = *base;
  while (!config.api_base.empty() && config.api_base.back() == '/') config.api_base.pop_back();
  return config;
}

SlackChannel::SlackChannel(Host& host, Config config)
    : host_(host),
      config_(std::move(config)),
      inbound_web_(host,
                   {config_.api_base, config_.bot_token, config_.app_token, 8, kMaxImageBytes}),
      outbound_web_(host, {config_.api_base, config_.bot_token, config_.app_token}),
      tls_(clientTlsContext()) {
  audience_.allowed_users = config_.allowed_users;
}

SlackChannel::~SlackChannel() {
  stop();
  closeAll();
}

ChannelCaps SlackChannel::caps() const noexcept {
  ChannelCaps caps;
  caps.max_message_chars = kMaxMessageChars;
  caps.can_edit = true;
  caps.shows_typing = false;  // Socket Mode apps have no typing indicator
  return caps;
}

Status SlackChannel::run(InboundSink& sink) noexcept {
  return guard("slack: receive loop", [&] { return runLoop(sink); });
}

void SlackChannel::stop() noexcept {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  inbound_web_.interrupt();
}

// --- receive loop (run() thread) ------------------------------------------------------------

Status SlackChannel::runLoop(InboundSink& sink) {
  if (auto status = authenticate(); !status.isOk()) return status;
  auto delay = std::chrono::duration_cast<Clock::duration>(kFirstBackoff);
  auto next_attempt = Clock::now();
  while (!host_.stopping()) {
    {
      std::lock_guard lock(mutex_);
      if (stop_ || !fatal_.empty()) break;
      if (std::exchange(hello_, false)) delay = kFirstBackoff;
    }
    reap(&next_attempt, &delay);
    if (wantsConnection() && Clock::now() >= next_attempt) {
      auto status = connect();
      if (!status.isOk() && !status.retryable()) {
        closeAll();
        return status;
      }
      if (!status.isOk()) {
        host_.log(LogLevel::kWarn, "slack: Socket Mode connection failed; retrying",
                  {{"error", status.message()},
                   {"retry_in_ms",
                    std::to_string(
                        std::chrono::duration_cast<std::chrono::milliseconds>(delay).count())}});
        next_attempt = Clock::now() + delay;
        delay = std::min<Clock::duration>(delay * 2, kMaxBackoff);
      }
    }
    drainQueue(sink);
    // A live socket (silent ones are closed after 90 s) is a working receive path.
    if (!wantsConnection()) sink.onReceiveOk();
    waitForWork(wantsConnection() ? next_attempt : Clock::now() + seconds(1));
  }
  closeAll();
  std::lock_guard lock(mutex_);
  if (!fatal_.empty()) return Status::error(fatal_);
  return Status::ok();
}

Status SlackChannel::authenticate() {
  auto reply = inbound_web_.call("auth.test", "{}");
  if (!reply.isOk()) {
    auto message = reply.status().message();
    if (reply.status().retryable()) return Status::error(message);
    if (message.find("SLACK_BOT_TOKEN") == std::string::npos) message += " (check SLACK_BOT_TOKEN)";
    return Status::error(message);
  }
  audience_.bot_user_id = stringField(reply->body, "user_id");
  host_.log(LogLevel::kInfo, "slack: bot token accepted",
            {{"bot_user_id", audience_.bot_user_id}, {"team", stringField(reply->body, "team")}});
  return Status::ok();
}

// Opens a Socket Mode connection; the one it replaces keeps delivering for a grace period.
Status SlackChannel::connect() {
  auto reply = inbound_web_.callWithAppToken("apps.connections.open");
  if (!reply.isOk()) {
    auto message = reply.status().message();
    if (reply.status().retryable()) return Status::retry(message);
    if (message.find("SLACK_APP_TOKEN") == std::string::npos) message += " (check SLACK_APP_TOKEN)";
    return Status::error(message);
  }
  auto url = stringField(reply->body, "url");
  if (url.empty()) return Status::retry("slack: apps.connections.open: reply has no url");
  int id = 0;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
  }
  auto connection = SocketConnection::open(url, tls_, *this, id);
  if (!connection.isOk()) return connection.status();
  std::lock_guard lock(mutex_);
  if (current_) retiring_.emplace_back(std::move(current_), Clock::now() + kRetireGrace);
  current_ = std::move(connection.value());
  host_.log(LogLevel::kInfo, "slack: Socket Mode connected", {{"connection", std::to_string(id)}});
  return Status::ok();
}

bool SlackChannel::wantsConnection() {
  std::lock_guard lock(mutex_);
  return !current_ || current_->finished() || refresh_ids_.contains(current_->id());
}

void SlackChannel::waitForWork(Clock::time_point until) {
  until = std::min(until, Clock::now() + seconds(1));
  std::unique_lock lock(mutex_);
  wake_.wait_until(lock, until, [this] {
    return stop_ || !payloads_.empty() || !fatal_.empty() || (current_ && current_->finished());
  });
}

// Joins connections that ended, and retired ones past their grace period. A dropped
// current connection schedules the next attempt after the backoff delay.
void SlackChannel::reap(Clock::time_point* next_attempt, Clock::duration* delay) {
  std::vector<std::unique_ptr<SocketConnection>> done;
  bool dropped = false;
  {
    std::lock_guard lock(mutex_);
    if (current_ && current_->finished()) {
      dropped = !refresh_ids_.contains(current_->id());
      done.push_back(std::move(current_));
    }
    auto now = Clock::now();
    for (auto it = retiring_.begin(); it != retiring_.end();) {
      if (it->first->finished() || now >= it->second) {
        done.push_back(std::move(it->first));
        it = retiring_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& connection : done) {
    connection->close();
    std::lock_guard lock(mutex_);
    refresh_ids_.erase(connection->id());
  }
  if (dropped) {
    *next_attempt = Clock::now() + *delay;
    *delay = std::min<Clock::duration>(*delay * 2, kMaxBackoff);
  }
}

void SlackChannel::closeAll() {
  std::vector<std::unique_ptr<SocketConnection>> all;
  {
    std::lock_guard lock(mutex_);
    if (current_) all.push_back(std::move(current_));
    for (auto& retiring : retiring_) all.push_back(std::move(retiring.first));
    retiring_.clear();
  }
  for (auto& connection : all) connection->close();
}

void SlackChannel::drainQueue(InboundSink& sink) {
  std::deque<std::string> payloads;
  {
    std::lock_guard lock(mutex_);
    payloads.swap(payloads_);
  }
  for (const auto& payload : payloads) handlePayload(payload, sink);
}

void SlackChannel::handlePayload(const std::string& payload, InboundSink& sink) {
  auto decision = decideEvent(payload, audience_);
  if (decision.action == EventDecision::Action::kIgnore) {
    host_.log(LogLevel::kDebug, "slack: event ignored", {{"reason", decision.why}});
    return;
  }
  if (!firstTime(decision.dedupe_key)) {
    host_.log(LogLevel::kDebug, "slack: duplicate event skipped", {{"key", decision.dedupe_key}});
    return;
  }
  if (decision.action == EventDecision::Action::kStranger) {
    host_.log(LogLevel::kWarn, "slack: message from a sender not in SLACK_ALLOWED_USERS dropped",
              {{"user", decision.message.sender_id}, {"chat", decision.message.chat_id}});
    return;
  }
  attachImages(decision);
  sink.onMessage(std::move(decision.message));
}

void SlackChannel::attachImages(EventDecision& decision) {
  for (const auto& file : decision.files) {
    if (file.size > static_cast<std::int64_t>(kMaxImageBytes)) {
      host_.log(LogLevel::kWarn, "slack: image larger than the size cap not attached",
                {{"file", file.id}, {"bytes", std::to_string(file.size)}});
      continue;
    }
    auto bytes = inbound_web_.download(file.url_private);
    if (!bytes.isOk()) {
      host_.log(LogLevel::kWarn, "slack: image not attached",
                {{"file", file.id}, {"error", bytes.status().message()}});
      continue;
    }
    decision.message.images.push_back({file.mimetype, base64(bytes.value()), ""});
  }
}

bool SlackChannel::firstTime(const std::string& key) {
  if (key.empty()) return true;
  if (!seen_.insert(key).second) return false;
  seen_order_.push_back(key);
  if (seen_order_.size() > kMaxSeenEvents) {
    seen_.erase(seen_order_.front());
    seen_order_.pop_front();
  }
  return true;
}

// --- socket threads -------------------------------------------------------------------------

void SlackChannel::onEnvelope(SocketConnection& connection, Envelope envelope) {
  std::lock_guard lock(mutex_);
  switch (envelope.type) {
    case Envelope::Type::kHello: hello_ = true; break;
    case Envelope::Type::kDisconnect:
      host_.log(LogLevel::kInfo, "slack: disconnect requested",
                {{"reason", envelope.reason}, {"connection", std::to_string(connection.id())}});
      if (envelope.reason == "link_disabled") {
        fatal_ =
            "slack: Socket Mode was disabled for this app (disconnect link_disabled); turn "
            "Socket Mode on in the app settings";
      } else {
        refresh_ids_.insert(connection.id());
      }
      break;
    case Envelope::Type::kEventsApi: payloads_.push_back(std::move(envelope.payload_json)); break;
    case Envelope::Type::kOther: return;
  }
  wake_.notify_all();
}

void SlackChannel::onClosed(SocketConnection& connection, const std::string& why) {
  host_.log(LogLevel::kInfo, "slack: Socket Mode connection ended",
            {{"connection", std::to_string(connection.id())}, {"reason", why}});
  wake_.notify_all();
}

// --- sending (any thread) -------------------------------------------------------------------

Result<std::string> SlackChannel::post(const std::string& chat_id, const std::string& text) {
  auto reply = outbound_web_.call("chat.postMessage", postMessageBody(chat_id, text));
  if (!reply.isOk()) return reply.status();
  return stringField(reply->body, "ts");
}

Result<std::string> SlackChannel::send(const std::string& chat_id, std::string_view text) noexcept {
  return guard("slack: send", [&]() -> Result<std::string> {
    // Split before rendering, so a text within caps() is always one message (and stays
    // editable); escapes may lengthen a part a little, well within Slack's hard limit.
    auto parts = text::splitMessage(text, kMaxMessageChars);
    if (parts.empty()) return Status::error("slack: send: empty message");
    std::string ts;
    for (const auto& part : parts) {
      auto sent = post(chat_id, markdownToMrkdwn(part));
      if (!sent.isOk()) return sent.status();
      ts = sent.value();
    }
    return ts;
  });
}

Status SlackChannel::edit(const std::string& chat_id, const std::string& message_id,
                          std::string_view text) noexcept {
  return guard("slack: edit", [&]() -> Status {
    auto body = updateMessageBody(chat_id, message_id, markdownToMrkdwn(text));
    auto reply = outbound_web_.call("chat.update", body);
    return reply.isOk() ? Status::ok() : reply.status();
  });
}

Status SlackChannel::typing(const std::string&) noexcept {
  return Status::ok();  // Socket Mode apps have no typing indicator.
}

Result<std::string> SlackChannel::sendPhoto(const std::string& chat_id, const Image& image,
                                            std::string_view caption) noexcept {
  return guard("slack: sendPhoto", [&]() -> Result<std::string> {
    if (image.url.rfind("http", 0) != 0) {
      return Status::error("slack: sendPhoto: only image URLs can be sent, not image data");
    }
    auto body = postImageBody(chat_id, image.url, markdownToMrkdwn(caption));
    auto reply = outbound_web_.call("chat.postMessage", body);
    if (!reply.isOk()) return reply.status();
    return stringField(reply->body, "ts");
  });
}

}  // namespace gantry::slack
