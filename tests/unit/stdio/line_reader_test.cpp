#include "line_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

namespace gantry::stdio {
namespace {

/// A pipe whose write end the test fills and closes.
struct Pipe {
  Pipe() { REQUIRE(::pipe2(fds, O_CLOEXEC) == 0); }
  ~Pipe() {
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
  /// Whole or false; no assertion inside, so writer threads can call it.
  bool write(const std::string& text) const {
    return ::write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size());
  }
  void closeWriter() {
    ::close(fds[1]);
    fds[1] = -1;
  }
  int fds[2] = {-1, -1};
};

/// Every line of input written at once and closed, read to the end.
std::vector<std::string> linesOf(const std::string& input) {
  Pipe pipe;
  REQUIRE(pipe.write(input));
  pipe.closeWriter();
  LineReader reader(pipe.fds[0]);
  std::vector<std::string> lines;
  for (std::string line; reader.next(&line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("lines written together are read in one call and returned one by one") {
  Pipe pipe;
  REQUIRE(pipe.write("first\nsecond\n\nthird\n"));
  LineReader reader(pipe.fds[0]);
  CHECK_FALSE(reader.ready());
  std::string line;
  REQUIRE(reader.next(&line));
  CHECK(line == "first");
  // The rest came with the first read: nothing is left for poll() to report.
  CHECK(reader.ready());
  REQUIRE(reader.next(&line));
  CHECK(line == "second");
  REQUIRE(reader.next(&line));
  CHECK(line.empty());
  REQUIRE(reader.next(&line));
  CHECK(line == "third");
  CHECK_FALSE(reader.ready());
}

TEST_CASE("a line split across writes is returned whole") {
  Pipe pipe;
  LineReader reader(pipe.fds[0]);
  bool written = false;
  std::thread writer([&] {
    written = pipe.write("hel");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    written = written && pipe.write("lo\nwor");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    written = written && pipe.write("ld\n");
  });
  std::string line;
  REQUIRE(reader.next(&line));
  CHECK(line == "hello");
  REQUIRE(reader.next(&line));
  CHECK(line == "world");
  writer.join();
  CHECK(written);
}

TEST_CASE("the end of input returns a last line without a newline, then nothing") {
  Pipe pipe;
  REQUIRE(pipe.write("one\nlast"));
  pipe.closeWriter();
  LineReader reader(pipe.fds[0]);
  std::string line;
  REQUIRE(reader.next(&line));
  CHECK(line == "one");
  REQUIRE(reader.next(&line));
  CHECK(line == "last");
  CHECK(reader.ready());  // the end is known: no wait is needed to learn it again
  CHECK_FALSE(reader.next(&line));
  CHECK_FALSE(reader.next(&line));
}

TEST_CASE("end of input right after a newline returns no empty last line") {
  CHECK(linesOf("only\n") == std::vector<std::string>{"only"});
  CHECK(linesOf("\n") == std::vector<std::string>{""});
  CHECK(linesOf("").empty());
}

TEST_CASE("a line far longer than one read arrives whole, and so does the next") {
  Pipe pipe;
  std::string long_line(std::size_t{300} * 1024, 'x');
  long_line[1234] = 'y';
  LineReader reader(pipe.fds[0]);
  bool written = false;
  std::thread writer([&] {
    written = pipe.write(long_line + "\nafter\n");
    pipe.closeWriter();
  });
  std::string line;
  REQUIRE(reader.next(&line));
  CHECK(line == long_line);
  REQUIRE(reader.next(&line));
  CHECK(line == "after");
  CHECK_FALSE(reader.next(&line));
  writer.join();
  CHECK(written);
}

}  // namespace gantry::stdio
