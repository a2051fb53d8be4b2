#include "app/signals.h"

#include <signal.h>

namespace gantry::app {
namespace {

// Sent by the destructor to the signal thread alone, to end its wait.
constexpr int kQuitSignal = SIGUSR2;

sigset_t handledSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, kQuitSignal);
  return set;
}

}  // namespace

void blockSignals() {
  sigset_t set = handledSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // A closed stdout (a pipe reader gone) must be an error on write, not a silent death.
  signal(SIGPIPE, SIG_IGN);
}

SignalThread::SignalThread(std::function<void()> on_stop, std::function<void()> on_reload)
    : thread_([this, on_stop = std::move(on_stop), on_reload = std::move(on_reload)] {
        sigset_t set = handledSignals();
        while (!quit_) {
          int sig = 0;
          if (sigwait(&set, &sig) != 0) continue;
          if (sig == SIGHUP) {
            on_reload();
          } else if (sig != kQuitSignal) {
            on_stop();
          }  // a stray SIGUSR2 from outside is ignored
        }
      }) {}

SignalThread::~SignalThread() {
  quit_ = true;
  pthread_kill(thread_.native_handle(), kQuitSignal);
  thread_.join();
}

}  // namespace gantry::app
