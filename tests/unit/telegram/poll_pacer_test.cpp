#include "poll_pacer.h"

#include <catch2/catch.hpp>

using gantry::telegram::PollPacer;
using std::chrono::milliseconds;

namespace {

PollPacer pacer() { return PollPacer(milliseconds(50000), milliseconds(100), milliseconds(1000)); }

}  // namespace

TEST_CASE("a poll held for its timeout is followed at once by the next", "[telegram]") {
  PollPacer p = pacer();
  CHECK(p.after(milliseconds(50000), 0) == milliseconds(0));
  CHECK(p.after(milliseconds(30000), 0) == milliseconds(0));
}

TEST_CASE("a poll that brought updates is followed at once by the next", "[telegram]") {
  PollPacer p = pacer();
  CHECK(p.after(milliseconds(1), 3) == milliseconds(0));
}

TEST_CASE("empty polls answered early back off to about a second", "[telegram]") {
  PollPacer p = pacer();
  CHECK(p.after(milliseconds(1), 0) == milliseconds(100));
  CHECK(p.after(milliseconds(1), 0) == milliseconds(200));
  CHECK(p.after(milliseconds(1), 0) == milliseconds(400));
  CHECK(p.after(milliseconds(1), 0) == milliseconds(800));
  CHECK(p.after(milliseconds(1), 0) == milliseconds(1000));
  CHECK(p.after(milliseconds(1), 0) == milliseconds(1000));
}

TEST_CASE("updates after early empty polls reset the backoff", "[telegram]") {
  PollPacer p = pacer();
  p.after(milliseconds(1), 0);
  p.after(milliseconds(1), 0);
  CHECK(p.after(milliseconds(1), 1) == milliseconds(0));
  CHECK(p.after(milliseconds(1), 0) == milliseconds(100));
}
