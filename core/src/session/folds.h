#pragma once
/// Folds: the history's trims (DESIGN 4.2), run after the reply on a thread of their own, so
/// no owner's turn waits for the model call that writes the summary. A turn asks for one when
/// another turn like it would pass the bounds (session::Conversation::foldDue). A fold reads the
/// session's record, collapses every tool result but the last kKeptToolResults, drops the
/// oldest turns down to the low-water mark, folds them into the summary, and commits all of
/// it in one transaction: the one step that changes the prompt a local model has cached. A
/// turn that starts meanwhile sends the history as it was. A fold that fails or is
/// cancelled changes nothing; the next reply past the bounds asks again.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

#include "gantry/cancel.h"
#include "gantry/provider.h"
#include "session/history_bounds.h"
#include "session/summary.h"
#include "store/store.h"

namespace gantry::session {

class Folds {
 public:
  /// store and folder (the model that writes the summary) are not owned and outlive this.
  Folds(store::Store& store, Provider& folder, Bounds bounds, FoldLimits limits);
  /// Cancels the running fold and joins the thread; queued folds are left for later.
  ~Folds();
  Folds(const Folds&) = delete;
  Folds& operator=(const Folds&) = delete;

  /// Queues a fold of the session unless one is queued or running. Any thread.
  void request(int64_t session_id);
  /// True while a fold of the session is queued or running. Any thread.
  bool pending(int64_t session_id) const;
  /// Blocks until no fold is queued or running. Any thread but the folds'.
  void waitIdle() const;
  /// How many folds have committed so far (any session). Any thread.
  uint64_t committed() const { return committed_; }

 private:
  void loop();
  void fold(int64_t session_id);

  store::Store& store_;
  Provider& folder_;
  Bounds bounds_;
  FoldLimits limits_;
  CancelToken stop_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<int64_t> queue_;  ///< the running fold stays at the front until it ends
  bool stopping_ = false;
  std::atomic<uint64_t> committed_{0};
  std::thread thread_;
};

}  // namespace gantry::session
