// bench_soak: many piped turns through the real gantry binary (stdio channel in jsonl mode, the
// in-process fake model, the fake MCP server's echo for every other turn), fed in batches so
// the instance runs steadily. Prints RSS after the first 1,000 turns and at the end, and the
// database size per 1,000 turns; exits 1 when RSS apart from the memory-mapped database grew
// by 1 MiB or more between the two. The mapped database's resident pages are the kernel's
// page cache of the file (shared, clean, reclaimable) and grow with the file.
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"

namespace {

using gantry::e2e::count;
using gantry::e2e::GantryProcess;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using gantry::testing::ScriptedReply;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr long kLimitKiB = 1024;
constexpr int kBatch = 100;
constexpr int kFirstMark = 1000;
constexpr const char* kReply = R"("type":"reply")";
constexpr const char* kToolOk = R"("type":"tool","name":"fake__echo","ok":true)";

/// gantry.db and its WAL, in bytes.
std::uintmax_t databaseBytes(const Workspace& ws) {
  std::uintmax_t total = 0;
  for (const char* name : {"gantry.db", "gantry.db-wal"}) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(ws.data() + "/" + name, ec);
    if (!ec) total += size;
  }
  return total;
}

/// Turns whose line asks for a tool get a call to fake__echo, then (after the tool result) a
/// reply; every other turn gets a reply at once. The history fold asks for a summary (its
/// transcript holds the turns' lines, so it is told apart by the instructions): it gets one,
/// else the unfolded history would keep growing.
ScriptedReply respond(const std::string& body) {
  ScriptedReply reply;
  if (body.find("You maintain the running summary") != std::string::npos) {
    reply.content = "The user sent numbered soak turns; some used the echo tool.";
    return reply;
  }
  auto request = Poco::JSON::Parser().parse(body).extract<Poco::JSON::Object::Ptr>();
  auto messages = request->getArray("messages");
  auto last = messages->getObject(messages->size() - 1);
  const auto role = last->getValue<std::string>("role");
  const auto content = last->has("content") && last->get("content").isString()
                           ? last->getValue<std::string>("content")
                           : std::string();
  if (role == "user" && content.find("with a tool") != std::string::npos) {
    static std::atomic<int> calls{0};
    reply.tool_calls.push_back(
        {"call_" + std::to_string(++calls), "fake__echo", R"({"message":"soak"})", ""});
  } else {
    reply.content = role == "tool" ? "done with the tool" : "plain answer";
  }
  return reply;
}

/// Resident KiB of the mappings of gantry.db (its memory map; not the -wal or -shm files).
long mappedDatabaseKb(int pid) {
  std::ifstream smaps("/proc/" + std::to_string(pid) + "/smaps");
  std::string line;
  bool database = false;
  long kib = 0;
  while (std::getline(smaps, line)) {
    if (line.find(':') == std::string::npos || line.find(" kB") == std::string::npos) {
      database = line.size() > 10 && line.compare(line.size() - 10, 10, "/gantry.db") == 0;
    } else if (database && line.rfind("Rss:", 0) == 0) {
      kib += std::atol(line.c_str() + 4);
    }
  }
  return kib;
}

bool waitForCount(const GantryProcess& g, const char* needle, int n, std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (count(g.out(), needle) >= n) return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

/// Sends turns [from, to) in batches, each waiting for its replies; prints the memory at
/// every 1,000 turns.
bool runTurns(GantryProcess& g, int from, int to) {
  for (int start = from; start < to; start += kBatch) {
    const int end = std::min(to, start + kBatch);
    std::string input;
    for (int i = start; i < end; ++i) {
      const std::string text = "turn " + std::to_string(i) + (i % 2 ? " with a tool" : "");
      input += R"({"text":")" + text + "\"}\n";
    }
    g.write(input);
    if (!waitForCount(g, kReply, end, 120s)) {
      std::fprintf(stderr, "bench_soak: no reply to turn %d within 120 s\n%s\n", end - 1,
                   g.err().substr(g.err().size() > 4000 ? g.err().size() - 4000 : 0).c_str());
      return false;
    }
    if (end % 1000 == 0) {
      std::printf(
          "  %5d turns: RSS %ld KiB (anon %ld, file %ld, of which the mapped database %ld)\n", end,
          g.statusKb("VmRSS"), g.statusKb("RssAnon"), g.statusKb("RssFile"),
          mappedDatabaseKb(g.pid()));
      std::fflush(stdout);
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const int turns = argc > 1 ? std::atoi(argv[1]) : 10000;
  if (turns <= kFirstMark) {
    std::fprintf(stderr, "usage: bench_soak [turns > %d] (default 10000)\n", kFirstMark);
    return 2;
  }
  FakeOpenAiServer llm;
  llm.setResponder(respond);
  Workspace ws("soak");
  ws.write("mcp.toml", "[[server]]\nname = \"fake\"\ncommand = \"" GANTRY_BUILD_DIR
                       "/tests/fakes/mcp/fake_mcp_server\"\n");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["STDIO_FORMAT"] = "jsonl";
  env["LOG_LEVEL"] = "warn";
  env["CRON_ENABLED"] = "false";
  GantryProcess g(env);

  const auto start = Clock::now();
  if (!runTurns(g, 0, kFirstMark)) return 1;
  std::this_thread::sleep_for(500ms);
  const long rss_first = g.statusKb("VmRSS");
  const long own_first = rss_first - mappedDatabaseKb(g.pid());
  const auto db_first = databaseBytes(ws);
  if (!runTurns(g, kFirstMark, turns)) return 1;
  std::this_thread::sleep_for(500ms);
  const long rss_last = g.statusKb("VmRSS");
  const long own_last = rss_last - mappedDatabaseKb(g.pid());
  const auto db_last = databaseBytes(ws);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  g.closeInput();
  const int code = g.wait(60s);
  const int tools = count(g.out(), kToolOk);

  std::printf("%d turns (%d with a tool call, %d ok) in %.0f s, exit %d\n", turns, turns / 2, tools,
              seconds, code);
  std::printf("RSS at %d turns: %ld KiB, at %d turns: %ld KiB, growth %ld KiB\n", kFirstMark,
              rss_first, turns, rss_last, rss_last - rss_first);
  std::printf(
      "RSS apart from the mapped database at %d turns: %ld KiB, at %d turns: %ld KiB, growth %ld "
      "KiB (limit %ld)\n",
      kFirstMark, own_first, turns, own_last, own_last - own_first, kLimitKiB);
  std::printf("database: %.1f KiB at %d turns, %.1f KiB at %d turns, %.1f KiB per 1,000 turns\n",
              static_cast<double>(db_first) / 1024, kFirstMark, static_cast<double>(db_last) / 1024,
              turns,
              (static_cast<double>(db_last) - static_cast<double>(db_first)) / 1024 /
                  (turns - kFirstMark) * 1000);
  const bool ok = code == 0 && tools == turns / 2 && own_last - own_first < kLimitKiB;
  if (!ok) std::printf("bench_soak: FAILED\n");
  return ok ? 0 : 1;
}
