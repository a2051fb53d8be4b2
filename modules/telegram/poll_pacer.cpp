#include "poll_pacer.h"

#include <algorithm>

namespace gantry::telegram {

PollPacer::PollPacer(std::chrono::milliseconds poll_timeout, std::chrono::milliseconds first_pause,
                     std::chrono::milliseconds max_pause)
    : early_below_(poll_timeout / 2),
      first_pause_(first_pause),
      max_pause_(max_pause),
      next_pause_(first_pause) {}

std::chrono::milliseconds PollPacer::after(std::chrono::milliseconds elapsed, std::size_t updates) {
  if (updates > 0 || elapsed >= early_below_) {
    next_pause_ = first_pause_;
    return std::chrono::milliseconds::zero();
  }
  std::chrono::milliseconds pause = next_pause_;
  next_pause_ = std::min(next_pause_ * 2, max_pause_);
  return pause;
}

}  // namespace gantry::telegram
