#include "session/conversation.h"

#include <algorithm>
#include <optional>
#include <span>

#include "log/log.h"
#include "session/context_tail.h"

namespace gantry::session {

Conversation::Conversation(store::Store& store, Folds* folds, ConversationOptions options)
    : messages_(store), turns_(store), folds_(folds), options_(std::move(options)) {}

Status Conversation::open(const std::string& chat_id) {
  if (folds_ != nullptr) folds_seen_ = folds_->committed();
  auto session = messages_.open(chat_id);
  if (!session.isOk()) return session.status();
  chat_id_ = chat_id;
  session_id_ = session->id;
  history_ = std::move(session->history);
  ids_ = std::move(session->ids);
  collapsed_through_ = session->collapsed_through;
  collapseThrough(history_, ids_, collapsed_through_);
  summary_ = std::move(session->summary);
  return Status::ok();
}

Result<int64_t> Conversation::recordUser(const std::string& text, const std::vector<Image>& images,
                                         const std::vector<int64_t>& inbox_ids, bool track) {
  user_text_ = text;
  hydrated_ = options_.hydrate ? options_.hydrate(text) : "";
  memory_block_ = withoutShownRows(hydrated_, history_);
  now_ = options_.now ? options_.now() : "";
  ChatMessage user;
  user.content = withContext(memory_block_, now_, text);
  user.images = images;  // the record counts them; only this turn's prompt has them
  tracked_ = track;
  auto id = track ? turns_.open(session_id_, user, inbox_ids) : messages_.append(session_id_, user);
  if (!id.isOk()) return id.status();
  user_message_id_ = id.value();
  history_.push_back(std::move(user));
  ids_.push_back(id.value());
  return id;
}

Status Conversation::openContinuation() { return turns_.openContinuation(session_id_); }

Result<int64_t> Conversation::resume() {
  auto open = turns_.openTurns();
  if (!open.isOk()) return open.status();
  for (const auto& turn : open.value()) {
    if (turn.session_id != session_id_) continue;
    // Written before the model is called: a crash during the continuation must not lead to
    // a third attempt (the turn itself may be what brings the process down).
    if (Status s = turns_.markResumed(session_id_); !s.isOk()) return s;
    user_message_id_ = turn.user_message_id;
    resumed_ = true;
    return user_message_id_;
  }
  return Status::error("no interrupted turn to resume in chat " + chat_id_);
}

Status Conversation::bound() {
  // The bounds hold for the history the turn found; its own message may pass them (the fold
  // after the last reply meant to leave room for it).
  const bool own_message = user_message_id_ && !resumed_ && !history_.empty();
  const std::size_t found = history_.size() - (own_message ? 1 : 0);
  turn_start_ = found;
  const long own_tokens = own_message ? estimateTokens(history_.back()) : 0;
  record_past_bounds_ = pastBounds(found, estimateTokens(history_) - own_tokens, options_.bounds);
  // The bounds are a hard cap on the prompt (DESIGN 4.2), a fold under way or not: a fold is
  // asked for before the history passes them, so a turn rarely finds it past them.
  const bool trim = record_past_bounds_;
  std::size_t dropped = 0;
  if (trim) {
    collapseThrough(history_, ids_, collapseMark(history_, ids_));
    auto result = trimHistory(std::move(history_), options_.bounds);
    dropped = result.dropped.size();
    history_ = std::move(result.kept);
    ids_.erase(ids_.begin(), ids_.begin() + static_cast<std::ptrdiff_t>(dropped));
    turn_start_ -= std::min(turn_start_, dropped);
    log::info("history_bounded",
              {{"left_out", std::to_string(dropped)}, {"kept", std::to_string(history_.size())}});
  }
  // A continuation (no message of its own) or a resumed turn goes on from the history as
  // it is: it ends with the turn's message, its results so far or the note it waits on.
  if (!user_message_id_ || resumed_) return Status::ok();
  if (history_.empty() || history_.back().role != Role::kUser) {
    return Status::error("store: the current message is missing");
  }
  return dropped != 0 ? showMemoryLeftOut() : Status::ok();
}

// Due once another turn like this one, or a twentieth of the bounds, would pass them: the
// fold then commits before the turn that would pass them, which finds room and sends the
// history it was last sent.
bool Conversation::foldDue() const {
  if (folds_ == nullptr) return false;
  if (record_past_bounds_) return true;
  const std::size_t start = std::min(turn_start_, history_.size());
  long turn_tokens = 0;
  for (std::size_t i = start; i < history_.size(); ++i) turn_tokens += estimateTokens(history_[i]);
  const auto& bounds = options_.bounds;
  const std::size_t room_messages =
      std::max(history_.size() - start, static_cast<std::size_t>(bounds.max_messages / 20));
  const long room_tokens = std::max(turn_tokens, static_cast<long>(bounds.max_tokens / 20));
  return pastBounds(history_.size() + room_messages, estimateTokens(history_) + room_tokens,
                    bounds);
}

/// The message was recorded without the memory rows the history showed then. Bounding took
/// messages out of the prompt: rows only they showed are sent again with it. The recorded
/// message is settled before it is first sent (a fold sends only older turns).
Status Conversation::showMemoryLeftOut() {
  // The rows the bounded history shows before the message (bound() checked it is last).
  const auto before = std::span<const ChatMessage>(history_).first(history_.size() - 1);
  std::string block = withoutShownRows(hydrated_, before);
  if (block == memory_block_) return Status::ok();
  memory_block_ = std::move(block);
  std::string sent = withContext(memory_block_, now_, user_text_);
  if (Status s = messages_.setContent(user_message_id_, sent); !s.isOk()) return s;
  history_.back().content = std::move(sent);
  return Status::ok();
}

Result<std::vector<int64_t>> Conversation::recordCalls(const ChatMessage& message) {
  auto rows = messages_.appendCalls(session_id_, message);
  if (!rows.isOk()) return rows.status();
  history_.push_back(message);
  ids_.push_back(0);
  return rows;
}

Status Conversation::recordResult(int64_t row, const ToolCall& call, bool ok,
                                  const std::string& result, const store::CallCost& cost,
                                  const store::CallDecision& decision, std::vector<Image> images) {
  ChatMessage tool{Role::kTool, result, std::move(images), {}, call.id, call.name, {}};
  auto id = messages_.appendResult(session_id_, row, ok, cost, tool, decision);
  if (!id.isOk()) return id.status();
  history_.push_back(std::move(tool));
  ids_.push_back(id.value());
  return Status::ok();
}

// DESIGN 4.2 inside a turn: collapsing rewrites earlier messages, and a local model's prompt
// cache is then reused only up to the first of them, so it happens only when the turn's own
// context would pass the bounds, and then for every older result at once. The mark is kept,
// so later turns show those results the same way.
void Conversation::collapseIfPastBounds() {
  if (!pastBounds(history_, options_.bounds)) return;
  // A fold under way, or one since this turn read the history, collapses these results with
  // its trim, in the one step that changes what was sent; this turn sends the history as it
  // found it.
  if (folds_ != nullptr && (folds_->pending(session_id_) || folds_->committed() != folds_seen_)) {
    return;
  }
  const int64_t mark = collapseMark(history_, ids_);
  if (mark <= collapsed_through_) return;
  if (Status s = messages_.collapseThrough(session_id_, mark); !s.isOk()) {
    log::warn("collapse_not_recorded", {{"error", s.message()}});
  }
  collapsed_through_ = mark;
  collapseThrough(history_, ids_, mark);
}

Result<int64_t> Conversation::recordReply(const ChatMessage& message, const store::TurnCost* cost,
                                          const store::StoredBudget* standing) {
  if (!tracked_) {
    auto id = messages_.append(session_id_, message);
    if (!id.isOk()) return id.status();
    history_.push_back(message);
    ids_.push_back(id.value());
    if (cost) recordTurn(*cost, standing);
    return int64_t{0};
  }
  std::optional<store::TurnCost> with_session;
  if (cost) {
    with_session = *cost;
    with_session->session_id = session_id_;
  }
  auto outbox = turns_.closeWithReply(session_id_, chat_id_, message,
                                      with_session ? &*with_session : nullptr, standing);
  if (!outbox.isOk()) return outbox.status();
  history_.push_back(message);
  ids_.push_back(0);
  return outbox;
}

Result<int64_t> Conversation::closeWithNotice(const std::string& text) {
  return turns_.closeWithNotice(session_id_, chat_id_, text);
}

Status Conversation::closeTurn() { return turns_.close(session_id_); }

void Conversation::recordTurn(store::TurnCost cost, const store::StoredBudget* standing) {
  if (!session_id_) return;
  cost.session_id = session_id_;
  if (Status s = messages_.recordTurn(cost, standing); !s.isOk()) {
    log::warn("turn_not_recorded", {{"error", s.message()}});
  }
}

}  // namespace gantry::session
