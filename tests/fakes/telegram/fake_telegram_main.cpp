// fake_telegram: serves the fake Bot API on 127.0.0.1 until SIGTERM or SIGINT.
// Prints "PORT <n>" on stdout once listening. Control endpoints (for end-to-end tests):
//   POST /control/updates  an Update JSON object (update_id assigned) -> {"update_id":n}
//   GET  /control/sent     accepted sendMessage/editMessageText/sendPhoto/sendChatAction
//   POST /control/fail     {"method","status","description","retry_after","drop","count","hang_ms"}
//   POST /control/files    {"file_id","file_path","data_base64"}
//   GET  /control/state    {"confirmed_offset","getUpdates"}
// The bot token is argv[1] or FAKE_TELEGRAM_TOKEN (default 123456:fake-token).
// FAKE_TELEGRAM_HOLD_POLLS=0 answers every getUpdates at once instead of holding it.

#include <csignal>
#include <cstdlib>
#include <iostream>

#include "fake_telegram.h"

int main(int argc, char** argv) {
  const char* env_token = std::getenv("FAKE_TELEGRAM_TOKEN");
  std::string token = argc > 1 ? argv[1] : (env_token ? env_token : "123456:fake-token");
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // server threads inherit the mask

  gantry::fakes::FakeTelegram fake(token);
  const char* hold = std::getenv("FAKE_TELEGRAM_HOLD_POLLS");
  if (hold != nullptr && std::string(hold) == "0") fake.setHoldPolls(false);
  fake.start();
  std::cout << "PORT " << fake.port() << std::endl;
  int received = 0;
  sigwait(&signals, &received);
  fake.stop();
  return 0;
}
