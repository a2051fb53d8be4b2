// A turn's latency over the Telegram channel, through the real gantry binary, the Telegram
// fake (long polling: a parked getUpdates returns as soon as an update is queued) and the
// fake model answering at once: for N sequential messages (default 50), the time from
// queueing the update to the fake receiving the reply's sendMessage, beside the model call's
// own dur_ms from the log. With STREAM_REPLIES=true it also reports the time to the first
// message the stream sends. The message is queued while the poll is parked, so the poll wait
// is 0 here; a turn's host cost is end-to-end minus the model call.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "common/log_figures.h"
#include "e2e/support/gantry_process.h"
#include "fake_openai_server.h"
#include "fake_telegram.h"

using gantry::bench::percentile;
using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::fakes::FakeTelegram;
using gantry::testing::FakeOpenAiServer;
using gantry::testing::ScriptedReply;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kOwner = 111;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

bool run(bool stream, int n) {
  FakeTelegram telegram;
  telegram.start();
  FakeOpenAiServer llm;
  std::atomic<int> replies{0};
  llm.setResponder([&replies](const std::string&) {
    ScriptedReply reply;
    reply.content = "pong " + std::to_string(++replies) + " and a few more words to stream.";
    return reply;
  });
  Workspace ws(stream ? "bench-latency-stream" : "bench-latency");
  auto env = gantry::e2e::telegramEnv(ws, llm.port(), telegram.token(), telegram.apiBase(), kOwner);
  env["LOG_LEVEL"] = "info";
  env["STREAM_REPLIES"] = stream ? "true" : "false";
  env["SPINUP_NOTICE_MS"] = "0";
  GantryProcess g(env);
  if (!g.waitForLog("\"msg\":\"ready\"", 30s)) return false;
  std::vector<double> reply_ms, first_ms;
  for (int i = 1; i <= n; ++i) {
    if (!telegram.waitPolling(20s)) {
      std::fprintf(stderr, "bench_latency: no parked poll before message %d\n", i);
      return false;
    }
    const std::size_t sent_before = telegram.sent("sendMessage").size();
    const auto start = Clock::now();
    telegram.enqueueText(kOwner, "ping " + std::to_string(i));
    if (stream) {
      if (!telegram.waitSent(sent_before + 1, "sendMessage", 20s)) return false;
      first_ms.push_back(msSince(start));
    }
    const std::string full = "pong " + std::to_string(i) + " and a few more words to stream.";
    if (telegram.waitText(full, 1, 20s).empty()) {
      std::fprintf(stderr, "bench_latency: no reply to message %d\n%s\n", i, g.err().c_str());
      return false;
    }
    reply_ms.push_back(msSince(start));
  }
  const auto model = gantry::bench::modelCallDurations(g.err());
  std::printf("%-9s %d turns: queued -> reply sent p50 %.2f ms p90 %.2f ms; model call p50 %.2f ms",
              stream ? "streamed" : "plain", n, percentile(reply_ms, 0.5),
              percentile(reply_ms, 0.9), percentile(model, 0.5));
  if (stream)
    std::printf("; queued -> first streamed message p50 %.2f ms", percentile(first_ms, 0.5));
  std::printf("\n");
  return true;
}

}  // namespace

int main(int argc, char** argv) try {
  const int n = argc > 1 ? std::atoi(argv[1]) : 50;
  return run(false, n) && run(true, n) ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_latency: %s\n", e.what());
  return 1;
}
