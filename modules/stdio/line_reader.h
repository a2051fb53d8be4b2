#pragma once
/// LineReader: the lines of a file descriptor, read a buffer at a time (module-internal).

#include <string>

namespace gantry::stdio {

class LineReader final {
 public:
  /// fd stays the caller's; it is read from, never closed.
  explicit LineReader(int fd) : fd_(fd) {}

  /// A line (or the end of input) is already buffered: next() returns without waiting, so a
  /// poll() on the descriptor must not be waited on first.
  bool ready() const noexcept;

  /// The next line without its '\n' (a last line without one included). Blocks until a whole
  /// line, the end of input or a read error; false then with nothing left to return.
  bool next(std::string* line);

 private:
  /// Appends what one read() returns; false at the end of input or on an error.
  bool fill();

  int fd_;
  std::string buffer_;
  std::size_t start_ = 0;  ///< where the buffered lines not yet returned begin
  bool ended_ = false;
};

}  // namespace gantry::stdio
