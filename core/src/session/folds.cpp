#include "session/folds.h"

#include <algorithm>

#include "log/log.h"
#include "store/message_repo.h"

namespace gantry::session {

Folds::Folds(store::Store& store, Provider& folder, Bounds bounds, FoldLimits limits)
    : store_(store), folder_(folder), bounds_(bounds), limits_(limits), thread_([this] {
        loop();
      }) {}

Folds::~Folds() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.cancel();
  changed_.notify_all();
  thread_.join();
}

void Folds::request(int64_t session_id) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || std::find(queue_.begin(), queue_.end(), session_id) != queue_.end()) return;
    queue_.push_back(session_id);
  }
  changed_.notify_all();
}

bool Folds::pending(int64_t session_id) const {
  std::lock_guard lock(mutex_);
  return std::find(queue_.begin(), queue_.end(), session_id) != queue_.end();
}

void Folds::waitIdle() const {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return queue_.empty() || stopping_; });
}

void Folds::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return !queue_.empty() || stopping_; });
    if (stopping_) return;
    const int64_t session_id = queue_.front();
    lock.unlock();
    fold(session_id);
    lock.lock();
    queue_.pop_front();
    changed_.notify_all();
  }
}

void Folds::fold(int64_t session_id) {
  store::MessageRepo messages(store_);
  auto opened = messages.load(session_id);
  if (!opened.isOk()) {
    log::warn("summary_fold_failed", {{"error", opened.status().message()}});
    return;
  }
  std::vector<ChatMessage> history = opened->history;
  const std::vector<int64_t>& ids = opened->ids;
  collapseThrough(history, ids, opened->collapsed_through);
  // Asked for again by a turn that raced the last fold: that one made room already.
  if (!pastFoldMark(history, bounds_)) return;
  store::Fold fold{session_id, opened->summary, 0,
                   std::max(opened->collapsed_through, collapseMark(history, ids))};
  collapseThrough(history, ids, fold.collapsed_through);
  const std::size_t dropped = trimHistory(std::move(history), bounds_).dropped.size();
  if (dropped == 0 && fold.collapsed_through == opened->collapsed_through) return;
  if (dropped != 0) {
    // The summary reads the results as recorded, not as collapsed.
    const std::vector<ChatMessage> whole(opened->history.begin(),
                                         opened->history.begin() + static_cast<long>(dropped));
    auto folded = foldSummary(folder_, opened->summary, whole, stop_, limits_);
    if (!folded.isOk()) {
      log::warn("summary_fold_failed", {{"error", folded.status().message()},
                                        {"kept_unsummarised", std::to_string(dropped)}});
      return;
    }
    fold.summary = std::move(folded.value());
    fold.dropped_through = ids[dropped - 1];
  }
  if (Status s = messages.commitFold(fold); !s.isOk()) {
    log::warn("summary_save_failed", {{"error", s.message()}});
    return;
  }
  ++committed_;
  log::info("history_trimmed",
            {{"dropped", std::to_string(dropped)}, {"kept", std::to_string(ids.size() - dropped)}});
}

}  // namespace gantry::session
