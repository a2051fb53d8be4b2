#include "chat/reply_delivery.h"

#include "chat/reply_media.h"
#include "log/log.h"

namespace gantry::chat {
namespace {

bool presentFailure(Channel& channel, const std::string& chat_id, ReplyStream& observer,
                    const Status& status) {
  observer.abandon(agent::failureNotice(status));
  log::warn("turn_failed", {{"error", status.message()}});
  if (!channel.caps().renders_events)
    return channel.send(chat_id, agent::failureNotice(status)).isOk();
  channel.event(chat_id, {TurnEvent::Kind::kError, {}, false, 0, status.message()});
  return true;
}

bool presentReply(Channel& channel, const StreamOptions& stream, const std::string& chat_id,
                  ReplyStream& observer, const std::string& reply) {
  ChannelCaps caps = channel.caps();
  if (stream.stream && caps.raw_stream) return observer.finish(reply);  // a terminal shows URLs
  auto image = findImage(reply);
  if (!image) return observer.finish(reply);
  // A streamed bubble already shows the text: it becomes the text alone, the photo follows.
  bool streamed = stream.stream && caps.can_edit;
  if (streamed && !image->caption.empty()) observer.finish(image->caption);
  std::string caption = streamed ? "" : image->caption;
  auto sent = channel.sendPhoto(chat_id, Image{{}, {}, image->url}, caption);
  if (sent.isOk()) return true;
  log::warn("photo_send_failed", {{"error", sent.status().message()}});
  return observer.finish(reply);
}

}  // namespace

bool presentOutcome(Channel& channel, const StreamOptions& stream, const std::string& chat_id,
                    ReplyStream& observer, const agent::TurnResult& result) {
  if (result.status.isCancelled()) {
    observer.abandon("(cancelled)");
    return false;
  }
  if (!result.status.isOk()) return presentFailure(channel, chat_id, observer, result.status);
  return presentReply(channel, stream, chat_id, observer, result.reply);
}

}  // namespace gantry::chat
