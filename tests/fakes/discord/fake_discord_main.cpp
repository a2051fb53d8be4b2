// fake_discord: runs FakeDiscord until SIGINT/SIGTERM. Prints "PORT <n>" on stdout.
// Usage: fake_discord [--token T] [--heartbeat-ms N] [--bot-id ID]

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "fake_discord.h"

int main(int argc, char** argv) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before any server thread starts

  gantry::testing::FakeDiscord::Options options;
  options.heartbeat_interval_ms = 5000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--token") == 0) options.token = argv[i + 1];
    if (std::strcmp(argv[i], "--heartbeat-ms") == 0) {
      options.heartbeat_interval_ms = std::atoi(argv[i + 1]);
    }
    if (std::strcmp(argv[i], "--bot-id") == 0) options.bot_user_id = argv[i + 1];
  }
  gantry::testing::FakeDiscord fake(options);
  std::cout << "PORT " << fake.port() << std::endl;
  int received = 0;
  sigwait(&signals, &received);
  return 0;
}
