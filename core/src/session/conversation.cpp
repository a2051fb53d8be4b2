#include "session/conversation.h"

#include <algorithm>
#include <exception>
#include <iterator>
#include <optional>
#include <span>

#include "log/log.h"
#include "session/context_tail.h"

namespace gantry::session {

Conversation::Conversation(store::Store& store, Provider& folder, ConversationOptions options)
    : messages_(store),
      sessions_(store),
      turns_(store),
      folder_(folder),
      options_(std::move(options)) {}

Conversation::~Conversation() {
  if (loan_ == 0 || lent_ > history_.size()) return;
  // A history not given back (no memory, the store's lock failing) is read again next turn.
  try {
    // The lent messages as stored: what the turn added goes, collapsed results are whole
    // again and turns a failed fold left in the record are back in front.
    history_.erase(history_.begin() + static_cast<std::ptrdiff_t>(lent_), history_.end());
    for (auto& [at, content] : collapsed_) history_[at].content = std::move(content);
    history_.insert(history_.begin(), std::make_move_iterator(unfolded_.begin()),
                    std::make_move_iterator(unfolded_.end()));
    messages_.giveBack(session_id_, loan_, std::move(history_));
  } catch (const std::exception&) {
  }
}

Status Conversation::open(const std::string& chat_id) {
  auto session = messages_.open(chat_id);
  if (!session.isOk()) return session.status();
  chat_id_ = chat_id;
  session_id_ = session->id;
  history_ = std::move(session->history);
  loan_ = session->loan;
  lent_ = history_.size();
  shown_ = std::move(session->shown);
  summary_ = std::move(session->summary);
  return Status::ok();
}

Result<int64_t> Conversation::recordUser(const std::string& text, const std::vector<Image>& images,
                                         const std::vector<int64_t>& inbox_ids, bool track) {
  user_text_ = text;
  hydrated_ = options_.hydrate ? options_.hydrate(text) : "";
  memory_block_ = withoutShownRows(hydrated_, shown_);
  now_ = options_.now ? options_.now() : "";
  ChatMessage user;
  user.content = withContext(memory_block_, now_, text);
  user.images = images;  // the record counts them; only this turn's prompt has them
  tracked_ = track;
  auto id = track ? turns_.open(session_id_, user, inbox_ids) : messages_.append(session_id_, user);
  if (!id.isOk()) return id.status();
  user_message_id_ = id.value();
  history_.push_back(std::move(user));
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

Status Conversation::bound(const CancelToken& cancel) {
  auto result = boundHistory(std::move(history_), options_.bounds);
  // The bounds are a hard cap on the prompt. Turns past them leave the record's history only
  // once they are folded into the summary, so a fold that fails is tried again next turn.
  const bool dropped = !result.dropped.empty();
  lent_ -= std::min(lent_, result.dropped.size());
  if (dropped && !foldAway(result, cancel)) {
    unfolded_.insert(unfolded_.end(), std::make_move_iterator(result.dropped.begin()),
                     std::make_move_iterator(result.dropped.end()));
  }
  history_ = std::move(result.kept);
  collapseToolResults();
  // A continuation (no message of its own) or a resumed turn goes on from the history as
  // it is: it ends with the turn's message, its results so far or the note it waits on.
  if (!user_message_id_ || resumed_) return Status::ok();
  if (history_.empty() || history_.back().role != Role::kUser) {
    return Status::error("store: the current message is missing");
  }
  return dropped ? showMemoryLeftOut() : Status::ok();
}

bool Conversation::foldAway(const BoundResult& result, const CancelToken& cancel) {
  if (!fold(result.dropped, cancel)) return false;
  // Dropped turns leave the history (they stay in the record) once they are summarised.
  messages_.dropFromHistory(session_id_, static_cast<int64_t>(result.dropped.size()));
  log::info("history_trimmed", {{"dropped", std::to_string(result.dropped.size())},
                                {"kept", std::to_string(result.kept.size())},
                                {"kept_est_tokens", std::to_string(result.kept_tokens)}});
  return true;
}

bool Conversation::fold(const std::vector<ChatMessage>& dropped, const CancelToken& cancel) {
  auto folded = foldSummary(folder_, summary_, dropped, cancel, options_.fold);
  if (!folded.isOk()) {
    log::warn("summary_fold_failed", {{"error", folded.status().message()},
                                      {"kept_unsummarised", std::to_string(dropped.size())}});
    return false;
  }
  if (Status s = sessions_.setSummary(session_id_, folded.value()); !s.isOk()) {
    log::warn("summary_save_failed", {{"error", s.message()}});
    return false;
  }
  summary_ = std::move(folded.value());
  return true;
}

/// The message was recorded without the memory rows the history showed then. Bounding took
/// messages out of the prompt: rows only they showed are sent again with it. The recorded
/// message is settled before it is first sent (a fold sends only older turns).
Status Conversation::showMemoryLeftOut() {
  // The rows the bounded history shows before the message (bound() checked it is last).
  const auto before = std::span<const ChatMessage>(history_).first(history_.size() - 1);
  std::string block = withoutShownRows(hydrated_, text::shownByUserMessages(before));
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
  return rows;
}

Status Conversation::recordResult(int64_t row, const ToolCall& call, bool ok,
                                  const std::string& result, const store::CallCost& cost,
                                  const store::CallDecision& decision, std::vector<Image> images) {
  ChatMessage tool{Role::kTool, result, std::move(images), {}, call.id, call.name, {}};
  if (Status s = messages_.appendResult(session_id_, row, ok, cost, tool, decision); !s.isOk()) {
    return s;
  }
  history_.push_back(std::move(tool));
  return Status::ok();
}

// DESIGN 4.2 inside the turn as well. Collapsing rewrites an earlier message, and a local
// model's prompt cache is then reused only up to that message; the rule depends only on the
// order of results (all but the last kKeptToolResults collapse), so every request of the
// turn and of later turns shows an earlier result the same way, and a round of n results
// costs the cache at most the n oldest whole results.
void Conversation::collapseToolResults() {
  std::vector<std::pair<std::size_t, std::string>> collapsed;
  collapseOldToolResults(history_, kKeptToolResults, &collapsed);
  for (auto& entry : collapsed) {
    if (entry.first < lent_) collapsed_.push_back(std::move(entry));
  }
}

Result<int64_t> Conversation::recordReply(const ChatMessage& message, const store::TurnCost* cost,
                                          const store::StoredBudget* standing) {
  if (!tracked_) {
    auto id = messages_.append(session_id_, message);
    if (!id.isOk()) return id.status();
    history_.push_back(message);
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
