#include "store/history_cache.h"

#include <algorithm>

namespace gantry::store {

void HistoryCache::History::dropOldest(std::size_t count) {
  messages.erase(messages.begin(),
                 messages.begin() + static_cast<std::ptrdiff_t>(std::min(count, messages.size())));
  shown = text::shownByUserMessages(messages);
}

HistoryCache::Entries::iterator HistoryCache::entry(int64_t session_id) {
  return std::find_if(entries_.begin(), entries_.end(),
                      [&](const auto& entry) { return entry.first == session_id; });
}

HistoryCache::History* HistoryCache::find(int64_t session_id) {
  auto it = entry(session_id);
  if (it == entries_.end() || it->second.loan != 0) return nullptr;
  std::rotate(it, it + 1, entries_.end());
  return &entries_.back().second;
}

uint64_t HistoryCache::lend(History& history, std::vector<ChatMessage>& messages) {
  messages = std::move(history.messages);
  history.messages.clear();
  history.loan = ++last_loan_;
  history.lent = messages.size();
  history.dropped_while_lent = 0;
  return history.loan;
}

void HistoryCache::droppedWhileLent(int64_t session_id, std::size_t count) {
  if (auto it = entry(session_id); it != entries_.end() && it->second.loan != 0) {
    it->second.dropped_while_lent += count;
  }
}

void HistoryCache::giveBack(int64_t session_id, uint64_t loan, std::vector<ChatMessage> messages) {
  auto it = entry(session_id);
  if (loan == 0 || it == entries_.end() || it->second.loan != loan) return;
  History& history = it->second;
  if (history.dropped_while_lent > history.lent ||
      messages.size() != history.lent - history.dropped_while_lent) {
    entries_.erase(it);
    return;
  }
  history.messages = std::move(messages);
  if (history.dropped_while_lent != 0) history.shown = text::shownByUserMessages(history.messages);
  history.loan = 0;
}

HistoryCache::History& HistoryCache::keep(int64_t session_id, History history) {
  forget(session_id);
  if (entries_.size() >= kSessions) entries_.erase(entries_.begin());
  entries_.emplace_back(session_id, std::move(history));
  return entries_.back().second;
}

void HistoryCache::forgetHolding(int64_t message_id) {
  entries_.erase(
      std::remove_if(entries_.begin(), entries_.end(),
                     [&](const auto& entry) { return entry.second.last_id >= message_id; }),
      entries_.end());
}

void HistoryCache::forget(int64_t session_id) {
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [&](const auto& entry) { return entry.first == session_id; }),
                 entries_.end());
}

void HistoryCache::seeDataVersion(int64_t version) {
  if (version == data_version_) return;
  for (auto& entry : entries_) entry.second.checked = false;
  data_version_ = version;
}

}  // namespace gantry::store
