#include "line_reader.h"

#include <unistd.h>

#include <cerrno>

namespace gantry::stdio {
namespace {

// A typical message in one call (reading a byte at a time cost a system call a byte); the
// buffer is zero-filled and kept, so it stays small.
constexpr std::size_t kReadSize = 4096;
// A buffer grown past this by a long line is given back once that line is returned.
constexpr std::size_t kKeptCapacity = 16 * kReadSize;

}  // namespace

bool LineReader::ready() const noexcept {
  return ended_ || buffer_.find('\n', start_) != std::string::npos;
}

bool LineReader::next(std::string* line) {
  std::size_t newline;
  while ((newline = buffer_.find('\n', start_)) == std::string::npos) {
    if (ended_ || !fill()) {
      ended_ = true;
      if (start_ == buffer_.size()) return false;
      line->assign(buffer_, start_);
      buffer_.clear();
      start_ = 0;
      return true;
    }
  }
  line->assign(buffer_, start_, newline - start_);
  start_ = newline + 1;
  if (start_ == buffer_.size() && buffer_.capacity() > kKeptCapacity) {
    std::string().swap(buffer_);
    start_ = 0;
  }
  return true;
}

bool LineReader::fill() {
  // Lines already returned go first, so the buffer holds at most one line and one read.
  buffer_.erase(0, start_);
  start_ = 0;
  const std::size_t held = buffer_.size();
  buffer_.resize(held + kReadSize);
  ssize_t n;
  do {
    n = ::read(fd_, buffer_.data() + held, kReadSize);
  } while (n < 0 && errno == EINTR);
  buffer_.resize(held + static_cast<std::size_t>(n > 0 ? n : 0));
  return n > 0;
}

}  // namespace gantry::stdio
