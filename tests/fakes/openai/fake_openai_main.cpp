// fake_openai --script FILE [--requests-log FILE] [--port N]
// Serves the scripted OpenAI-compatible API on 127.0.0.1, prints "PORT <n>", runs until
// SIGTERM or SIGINT.

#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>

#include "Poco/Exception.h"
#include "fake_openai_server.h"

namespace {

struct Args {
  std::string script;
  std::string requests_log;
  int port = 0;
};

bool parseArgs(int argc, char** argv, Args* args) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) return false;
    std::string value = argv[++i];
    if (flag == "--script") {
      args->script = value;
    } else if (flag == "--requests-log") {
      args->requests_log = value;
    } else if (flag == "--port") {
      args->port = std::stoi(value);
    } else {
      return false;
    }
  }
  return args->port >= 0 && args->port <= 65535;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  try {
    if (!parseArgs(argc, argv, &args)) throw std::invalid_argument("bad arguments");
  } catch (const std::exception&) {
    std::cerr << "usage: fake_openai [--script FILE] [--requests-log FILE] [--port N]\n";
    return 2;
  }
  // Block the stop signals before any thread starts, so only sigwait sees them.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  try {
    gantry::testing::FakeOpenAiServer server(static_cast<std::uint16_t>(args.port));
    if (!args.script.empty()) server.loadScriptFile(args.script);
    if (!args.requests_log.empty()) server.setRequestsLog(args.requests_log);
    std::printf("PORT %u\n", static_cast<unsigned>(server.port()));
    std::fflush(stdout);
    int signal = 0;
    sigwait(&stop, &signal);
  } catch (const Poco::Exception& e) {
    std::cerr << "fake_openai: " << e.displayText() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "fake_openai: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
