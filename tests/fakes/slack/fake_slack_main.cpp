// fake_slack: runs FakeSlack until SIGTERM/SIGINT. Prints "PORT <n>" on stdout once ready;
// the Web API base is http://127.0.0.1:<n>/api, control routes are under /control/.

#include <csignal>
#include <iostream>

#include "fake_slack.h"

int main() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before any thread starts
  gantry::fakes::FakeSlack fake;
  std::cout << "PORT " << fake.port() << std::endl;
  int signal = 0;
  sigwait(&signals, &signal);
  return 0;
}
