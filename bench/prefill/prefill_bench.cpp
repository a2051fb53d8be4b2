// bench_prefill: what a local model re-reads. A fake model that behaves like a local server
// with one prompt cache per chat (it keeps the previous prompt; a request costs its uncached
// tokens times a prefill cost plus its reply's tokens times an output cost, and the fake
// sleeps that long), and a conversation of many turns through the real gantry binary (stdio,
// jsonl; every third turn calls the fake MCP server's echo). Prints the cache breaks (a
// request that changed something inside the previous prompt), the prefill against the new
// content, and the owner's wait per turn, beside an ideal host that sends only new content.
// The history fold's requests are served apart, as a server with parallel slots would.
//
//   bench_prefill [turns (300)] [prefill ms per token (0.5)] [output ms per token (0.5)]
//                 [HISTORY_MAX_MESSAGES (default)]
//
// TEST_WRAPPER=PROGRAM runs gantry as `PROGRAM gantry ARGS…` (say, a script that runs another
// build's binary instead). PREFILL_TRACE=1 prints each break with the bytes around it.
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e/support/gantry_process.h"
#include "e2e/support/request_json.h"
#include "openai/fake_openai_server.h"

namespace {

using gantry::e2e::count;
using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using gantry::testing::ScriptedReply;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr const char* kReply = R"("type":"reply")";
constexpr const char* kFoldMarker = "You maintain the running summary";
constexpr const char* kAnswer =
    "Here is a considered answer of a few sentences, about as long as a chat reply to a short "
    "question usually is, so that each turn adds a realistic amount of new text to the history.";

struct Costs {
  double prefill_ms = 0.5;
  double output_ms = 0.5;
};

/// One chat request as the fake model saw it (tokens are bytes / 4).
struct Seen {
  int turn = 0;
  bool fold = false;
  bool broke = false;  ///< changed something inside the previous prompt
  long prompt = 0;     ///< the whole prompt
  long prefill = 0;    ///< what the cache did not hold
  long fresh = 0;      ///< new content: what an ideal host would add to the previous prompt
  long output = 0;
  double ms = 0;  ///< the modelled (and slept) latency
};

long tokens(std::size_t bytes) { return static_cast<long>((bytes + 3) / 4); }

std::string stringify(const Poco::JSON::Object::Ptr& object) {
  std::ostringstream out;
  Poco::JSON::Stringifier::stringify(object, out);
  return out.str();
}

/// The bytes of what the conversation added since its previous request: the reply before the
/// user's message and the message (a turn's first request), or a round's call and results.
std::size_t freshBytes(const Poco::JSON::Array::Ptr& messages) {
  std::size_t bytes = 0;
  int i = static_cast<int>(messages->size()) - 1;
  if (i == 0) return stringify(messages->getObject(0)).size();
  const bool round = messages->getObject(i)->getValue<std::string>("role") == "tool";
  for (; i >= 0; --i) {
    auto m = messages->getObject(static_cast<unsigned>(i));
    bytes += stringify(m).size();
    const auto role = m->getValue<std::string>("role");
    if (role == "assistant" || role == "system") break;
    if (!round && role == "user" && i + 1 < static_cast<int>(messages->size())) break;
  }
  return bytes;
}

class Model {
 public:
  explicit Model(Costs costs) : costs_(costs) {}
  void setTurn(int turn) { turn_ = turn; }

  ScriptedReply respond(const std::string& body) {
    auto request = Poco::JSON::Parser().parse(body).extract<Poco::JSON::Object::Ptr>();
    auto messages = request->getArray("messages");
    const std::string array = gantry::e2e::jsonArray(body, "messages");
    Seen seen;
    seen.turn = turn_;
    seen.fold = body.find(kFoldMarker) != std::string::npos;
    ScriptedReply reply = answer(messages, seen.fold);
    {
      std::lock_guard lock(mutex_);
      std::string& cached = seen.fold ? fold_cache_ : chat_cache_;
      std::size_t common = 0;
      while (common < cached.size() && common < array.size() && cached[common] == array[common])
        ++common;
      // The previous array without its closing bracket is what a growing prompt repeats.
      seen.broke = !cached.empty() && common + 1 < cached.size();
      if (seen.broke && std::getenv("PREFILL_TRACE")) {
        std::fprintf(stderr, "break at %zu of %zu:\n  was: %s\n  now: %s\n", common, cached.size(),
                     cached.substr(common > 80 ? common - 80 : 0, 200).c_str(),
                     array.substr(common > 80 ? common - 80 : 0, 200).c_str());
      }
      seen.prompt = tokens(array.size());
      seen.prefill = tokens(array.size() - common);
      seen.fresh = tokens(freshBytes(messages));
      seen.output = tokens(reply.content.size() + (reply.tool_calls.empty() ? 0 : 40));
      seen.ms = static_cast<double>(seen.prefill) * costs_.prefill_ms +
                static_cast<double>(seen.output) * costs_.output_ms;
      cached = array;
      seen_.push_back(seen);
    }
    reply.delay_ms = static_cast<int>(seen.ms);
    return reply;
  }

  std::vector<Seen> seen() const {
    std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  ScriptedReply answer(const Poco::JSON::Array::Ptr& messages, bool fold) {
    ScriptedReply reply;
    if (fold) {
      reply.content = "The user asked numbered questions; some used the echo tool.";
      return reply;
    }
    auto last = messages->getObject(messages->size() - 1);
    const auto content = last->has("content") && last->get("content").isString()
                             ? last->getValue<std::string>("content")
                             : std::string();
    if (last->getValue<std::string>("role") == "user" &&
        content.find("use the tool") != std::string::npos) {
      reply.tool_calls.push_back({"call_" + std::to_string(++calls_), "fake__echo",
                                  R"({"text":"a line for the tool to echo back"})", ""});
    } else {
      reply.content = kAnswer;
    }
    return reply;
  }

  Costs costs_;
  std::atomic<int> turn_{0};
  std::atomic<int> calls_{0};
  mutable std::mutex mutex_;
  std::string chat_cache_;
  std::string fold_cache_;
  std::vector<Seen> seen_;
};

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(p * static_cast<double>(values.size() - 1))];
}

void printWaits(const char* label, const std::vector<double>& waits) {
  double total = 0;
  for (double w : waits) total += w;
  std::printf("| %s | %.0f | %.0f | %.0f | %.1f |\n", label, percentile(waits, 0.5),
              percentile(waits, 0.95), percentile(waits, 1.0), total / 1000);
}

struct Totals {
  long requests = 0, breaks = 0, prefill = 0, fresh = 0, folds = 0, fold_prefill = 0;
  std::vector<double> modelled, ideal;
};

Totals tally(const std::vector<Seen>& seen, int turns, Costs costs) {
  Totals t;
  t.modelled.assign(static_cast<std::size_t>(turns), 0);
  t.ideal.assign(static_cast<std::size_t>(turns), 0);
  for (const auto& s : seen) {
    if (std::getenv("PREFILL_TRACE") && (s.fold || s.broke)) {
      std::fprintf(stderr, "turn %d: %s\n", s.turn, s.fold ? "fold" : "break");
    }
    if (s.fold) {
      ++t.folds;
      t.fold_prefill += s.prefill;
      continue;
    }
    ++t.requests;
    t.breaks += s.broke ? 1 : 0;
    t.prefill += s.prefill;
    t.fresh += s.fresh;
    const auto turn = static_cast<std::size_t>(s.turn);
    t.modelled[turn] += s.ms;
    t.ideal[turn] += static_cast<double>(s.fresh) * costs.prefill_ms +
                     static_cast<double>(s.output) * costs.output_ms;
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const int turns = argc > 1 ? std::atoi(argv[1]) : 300;
  Costs costs;
  if (argc > 2) costs.prefill_ms = std::atof(argv[2]);
  if (argc > 3) costs.output_ms = std::atof(argv[3]);
  Model model(costs);
  FakeOpenAiServer llm;
  llm.setResponder([&model](const std::string& body) { return model.respond(body); });
  Workspace ws("prefill");
  ws.write("mcp.toml", "[[server]]\nname = \"fake\"\ncommand = \"" GANTRY_BUILD_DIR
                       "/tests/fakes/mcp/fake_mcp_server\"\n");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["STDIO_FORMAT"] = "jsonl";
  env["LOG_LEVEL"] = "info";
  env["CRON_ENABLED"] = "false";
  if (argc > 4) env["HISTORY_MAX_MESSAGES"] = argv[4];
  // Another build's binary, to measure it beside this one in the same conditions.
  if (const char* wrapper = std::getenv(gantry::e2e::kWrapper))
    env[gantry::e2e::kWrapper] = wrapper;
  GantryProcess g(env);
  std::vector<double> waited;
  for (int turn = 0; turn < turns; ++turn) {
    model.setTurn(turn);
    const std::string text = "question " + std::to_string(turn) +
                             (turn % 3 == 2 ? ": please use the tool" : ": what do you think?");
    const auto start = Clock::now();
    g.write(R"({"text":")" + text + "\"}\n");
    while (count(g.out(), kReply) < turn + 1) {
      if (Clock::now() - start > 120s) {
        std::fprintf(stderr, "bench_prefill: no reply to turn %d\n%s\n", turn, g.err().c_str());
        return 1;
      }
      std::this_thread::sleep_for(1ms);
    }
    waited.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  g.closeInput();
  const int code = g.wait(120s);
  const Totals t = tally(model.seen(), turns, costs);
  std::printf("%d turns, %ld chat requests, exit %d; prefill %.2f ms/token, output %.2f ms/token\n",
              turns, t.requests, code, costs.prefill_ms, costs.output_ms);
  std::printf("cache breaks: %ld (%.1f per 100 requests); folds: %ld (trims logged: %d)\n",
              t.breaks, 100.0 * static_cast<double>(t.breaks) / static_cast<double>(t.requests),
              t.folds, count(g.err(), "\"history_trimmed\""));
  std::printf("prefill: %ld est. tokens for %ld of new content (%.2fx); folds read %ld apart\n",
              t.prefill, t.fresh, static_cast<double>(t.prefill) / static_cast<double>(t.fresh),
              t.fold_prefill);
  std::printf(
      "\n| owner's wait per turn | p50 ms | p95 ms | max ms | total s |\n|---|---|---|---|---|\n");
  printWaits("gantry, measured", waited);
  printWaits("gantry, model's share", t.modelled);
  printWaits("ideal host", t.ideal);
  return code == 0 ? 0 : 1;
}
