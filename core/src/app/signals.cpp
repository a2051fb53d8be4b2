#include "app/signals.h"

#include <pthread.h>
#include <signal.h>

#include <thread>

namespace gantry::app {
namespace {

sigset_t handledSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

void blockSignals() {
  sigset_t set = handledSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // A closed stdout (a pipe reader gone) must be an error on write, not a silent death.
  signal(SIGPIPE, SIG_IGN);
}

void startSignalThread(std::function<void()> on_stop, std::function<void()> on_reload) {
  std::thread([on_stop = std::move(on_stop), on_reload = std::move(on_reload)] {
    sigset_t set = handledSignals();
    while (true) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0) continue;
      if (sig == SIGHUP) {
        on_reload();
      } else {
        on_stop();
      }
    }
  }).detach();
}

}  // namespace gantry::app
