#include "gantry/cancel.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <thread>

using gantry::CancelToken;
using namespace std::chrono_literals;

TEST_CASE("cancel runs each callback once and a late subscriber at once", "[cancel]") {
  CancelToken token;
  int runs = 0;
  token.subscribe([&] { ++runs; });
  token.cancel();
  token.cancel();
  CHECK(runs == 1);
  CHECK(token.cancelled());
  CHECK(token.subscribe([&] { ++runs; }) == 0);
  CHECK(runs == 2);
}

TEST_CASE("an unsubscribed callback does not run", "[cancel]") {
  CancelToken token;
  bool ran = false;
  auto id = token.subscribe([&] { ran = true; });
  token.unsubscribe(id);
  token.cancel();
  CHECK_FALSE(ran);
}

// The subscriber sees cancelled() while cancel() is still running its callback on another
// thread; unsubscribe must not return before that callback is done with what it uses.
TEST_CASE("unsubscribe waits for the callback cancel() is running on another thread", "[cancel]") {
  CancelToken token;
  std::atomic<bool> started{false};
  auto used = std::make_unique<std::atomic<int>>(0);
  auto id = token.subscribe([&started, state = used.get()] {
    started = true;
    std::this_thread::sleep_for(100ms);  // a slow callback: the window the race needs
    state->store(1);
  });
  std::thread canceller([&] { token.cancel(); });
  while (!started) std::this_thread::yield();
  CHECK(token.cancelled());
  token.unsubscribe(id);
  CHECK(used->load() == 1);  // finished: destroying it now is safe
  used.reset();
  canceller.join();
}

TEST_CASE("a callback may unsubscribe on the thread running it", "[cancel]") {
  CancelToken token;
  std::size_t id = 0;
  bool ran = false;
  id = token.subscribe([&] {
    token.unsubscribe(id);  // would wait for itself if the firing thread were not exempt
    ran = true;
  });
  token.cancel();
  CHECK(ran);
}
