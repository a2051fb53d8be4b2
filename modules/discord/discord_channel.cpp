#include "discord_channel.h"

#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "discord_api.h"
#include "gantry/guard.h"
#include "gantry/text/split.h"

namespace gantry::discord {
namespace {

constexpr std::size_t kMaxImageBytes =
    std::size_t{8} * 1024 * 1024;  // larger attachments stay URLs

std::string base64(const std::string& bytes) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out);
  encoder.rdbuf()->setLineLength(0);
  encoder << bytes;
  encoder.close();
  return out.str();
}

std::string unbase64(const std::string& text) {
  std::istringstream in(text);
  Poco::Base64Decoder decoder(in);
  return std::string(std::istreambuf_iterator<char>(decoder), {});
}

std::string extensionFor(const std::string& mime_type) {
  if (mime_type == "image/jpeg") return "jpg";
  if (mime_type == "image/gif") return "gif";
  if (mime_type == "image/webp") return "webp";
  return "png";
}

std::string messagesPath(const std::string& chat_id) {
  return "/channels/" + chat_id + "/messages";
}

}  // namespace

Result<DiscordConfig> readConfig(const Host& host) {
  DiscordConfig config;
  config.token = host.config("DISCORD_BOT_TOKEN").value_or("");
  if (config.token.empty()) return Status::error("discord: DISCORD_BOT_TOKEN is empty");
  auto allowed = parseAllowedUsers(host.config("DISCORD_ALLOWED_USERS").value_or(""));
  if (!allowed.isOk()) return allowed.status();
  config.allowed_users = allowed.value();
  auto api_base = host.config("DISCORD_API_BASE");
  if (api_base && !api_base->empty()) config.api_base = *api_base;
  config.gateway_url = host.config("DISCORD_GATEWAY_URL").value_or("");
  return config;
}

DiscordChannel::DiscordChannel(Host& host, DiscordConfig config)
    : host_(host), config_(std::move(config)), rest_(host, config_.api_base, config_.token) {
  gateway_ = std::make_unique<Gateway>(host_, GatewayOptions{config_.token, config_.allowed_users});
}

ChannelCaps DiscordChannel::caps() const noexcept {
  ChannelCaps caps;
  caps.max_message_chars = kMaxMessageChars;
  caps.can_edit = true;
  return caps;
}

// Network faults are waited out (the daemon should not die of a short outage at boot);
// a rejected token is not.
Result<std::string> DiscordChannel::gatewayUrl() {
  if (!config_.gateway_url.empty()) return config_.gateway_url;
  auto backoff = std::chrono::seconds(1);
  for (;;) {
    Result<std::string> body = rest_.request({"GET", "/gateway/bot", "", ""});
    if (body.isOk()) return parseGatewayBot(body.value());
    if (!body.status().retryable()) return body.status();
    host_.log(LogLevel::kWarn, body.status().message(),
              {{"retry_in_s", std::to_string(backoff.count())}});
    if (!gateway_->pause(backoff)) return Status::cancelled("discord: stopped");
    backoff = std::min(backoff * 2, std::chrono::seconds(60));
  }
}

Status DiscordChannel::run(InboundSink& sink) noexcept {
  return guard("discord: run", [&]() -> Status {
    Result<std::string> url = gatewayUrl();
    if (url.status().isCancelled()) return Status::ok();
    if (!url.isOk()) return url.status();
    Gateway::Callbacks callbacks;
    callbacks.message = [&](const DiscordMessage& message) { sink.onMessage(inbound(message)); };
    callbacks.alive = [&] { sink.onReceiveOk(); };
    return gateway_->run(url.value(), callbacks);
  });
}

void DiscordChannel::stop() noexcept { gateway_->stop(); }

InboundMessage DiscordChannel::inbound(const DiscordMessage& message) {
  InboundMessage out = toInbound(message);
  std::size_t next = 0;
  for (const Attachment& attachment : message.attachments) {
    if (!isImage(attachment)) continue;
    Image& image = out.images[next++];
    if (attachment.size > static_cast<std::int64_t>(kMaxImageBytes)) continue;
    Result<std::string> bytes = rest_.download(attachment.url, kMaxImageBytes);
    if (!bytes.isOk()) {
      host_.log(LogLevel::kWarn, "discord: image kept as URL: " + bytes.status().message());
      continue;
    }
    image = Image{attachment.content_type, base64(bytes.value()), ""};
  }
  return out;
}

Result<std::string> DiscordChannel::send(const std::string& chat_id,
                                         std::string_view text) noexcept {
  return guard("discord: send", [&]() -> Result<std::string> {
    Result<std::string> last = Status::error("discord: send: empty message");
    for (const std::string& part : text::splitMessage(text, kMaxMessageChars)) {
      Result<std::string> body = rest_.request({"POST", messagesPath(chat_id), messageBody(part)});
      if (!body.isOk()) return body.status();
      last = parseMessageId(body.value());
      if (!last.isOk()) return last;
    }
    return last;
  });
}

Status DiscordChannel::edit(const std::string& chat_id, const std::string& message_id,
                            std::string_view text) noexcept {
  return guard("discord: edit", [&]() -> Status {
    std::string_view head = text.substr(0, text::utf8Prefix(text, kMaxMessageChars));
    Result<std::string> body =
        rest_.request({"PATCH", messagesPath(chat_id) + "/" + message_id, messageBody(head)});
    return body.isOk() ? Status::ok() : body.status();
  });
}

Status DiscordChannel::typing(const std::string& chat_id) noexcept {
  return guard("discord: typing", [&]() -> Status {
    Result<std::string> body =
        rest_.request({"POST", "/channels/" + chat_id + "/typing", "", "application/json", true});
    return body.isOk() ? Status::ok() : body.status();
  });
}

Result<std::string> DiscordChannel::sendPhoto(const std::string& chat_id, const Image& image,
                                              std::string_view caption) noexcept {
  return guard("discord: sendPhoto", [&]() -> Result<std::string> {
    std::string_view head = caption.substr(0, text::utf8Prefix(caption, kMaxMessageChars));
    Result<std::string> body = Status::error("discord: sendPhoto: image has neither url nor data");
    if (!image.data_base64.empty()) {
      std::string filename = "image." + extensionFor(image.mime_type);
      body = rest_.upload(messagesPath(chat_id), photoUploadPayload(filename, head), filename,
                          image.mime_type.empty() ? "image/png" : image.mime_type,
                          unbase64(image.data_base64));
    } else if (!image.url.empty()) {
      body = rest_.request({"POST", messagesPath(chat_id), photoEmbedBody(image.url, head)});
    }
    if (!body.isOk()) return body.status();
    return parseMessageId(body.value());
  });
}

}  // namespace gantry::discord
