// End-to-end: the real gantry binary with its real stdio channel and openai provider,
// against the scripted fake model.
#include <signal.h>
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "e2e/support/gantry_process.h"
#include "gantry/abi.h"
#include "openai/fake_openai_server.h"

using gantry::e2e::count;
using gantry::e2e::Env;
using gantry::e2e::GantryProcess;
using gantry::e2e::runGantry;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;
using namespace std::chrono_literals;

namespace {

Env jsonl(Env env) {
  env["STDIO_FORMAT"] = "jsonl";
  return env;
}

std::string toolCall(const std::string& name, const std::string& args_json) {
  std::string escaped;
  for (char c : args_json) escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
  return R"({"tool_calls":[{"id":"c1","name":")" + name + R"(","arguments":")" + escaped +
         R"("}]})";
}

}  // namespace

TEST_CASE("a piped conversation gets one reply per line, in order, and exits 0", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("pipe");
  auto r = runGantry(gantry::e2e::stdioEnv(ws, llm.port()), "hello\nsecond line\n");
  CHECK(r.code == 0);
  auto first = r.out.find("hello");
  auto second = r.out.find("second line");
  REQUIRE(first != std::string::npos);
  REQUIRE(second != std::string::npos);
  CHECK(first < second);
  CHECK(r.out == "echo: hello\necho: second line\n");
  CHECK(r.out.find("\"level\"") == std::string::npos);  // logs never on stdout
  CHECK(r.err.find("\"msg\":\"ready\"") != std::string::npos);
}

TEST_CASE("jsonl mode reports tool events and replies, and the record is written", "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(
      toolCall("memory_store", R"({"kind":"person","subject":"mom","content":"prefers calls"})"));
  llm.addReply(R"({"content":"Noted."})");
  Workspace ws("jsonl");
  auto r = runGantry(jsonl(gantry::e2e::stdioEnv(ws, llm.port())),
                     "{\"text\": \"remember that mom prefers calls\"}\n");
  CHECK(r.code == 0);
  CHECK(r.out.find(R"({"type":"tool","name":"memory_store","ok":true,"ms":)") != std::string::npos);
  CHECK(r.out.find(R"({"type":"reply","text":"Noted."})") != std::string::npos);
  auto requests = llm.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].find(R"("role":"tool")") != std::string::npos);
  // The next session is hydrated with the stored memory.
  auto again = runGantry(jsonl(gantry::e2e::stdioEnv(ws, llm.port())), "{\"text\": \"who?\"}\n");
  CHECK(again.code == 0);
  CHECK(llm.requests().back().find("(person) mom: prefers calls") != std::string::npos);
}

TEST_CASE("a malformed jsonl line gets an error event and does not stop the pipe", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("badjsonl");
  auto r =
      runGantry(jsonl(gantry::e2e::stdioEnv(ws, llm.port())), "not json\n{\"text\": \"fine\"}\n");
  CHECK(r.code == 0);
  CHECK(r.out.find(R"("type":"error")") != std::string::npos);
  CHECK(r.out.find("fine") != std::string::npos);
}

TEST_CASE("misspelled tool names are repaired when one tool is meant", "[e2e]") {
  for (const char* name : {"functions.memory_store", "Memory-Store", "mcp__memory_store"}) {
    FakeOpenAiServer llm;
    llm.addReply(toolCall(name, R"({"kind":"fact","subject":"sky","content":"blue"})"));
    llm.addReply(R"({"content":"ok"})");
    Workspace ws("repair");
    auto r = runGantry(jsonl(gantry::e2e::stdioEnv(ws, llm.port())), "{\"text\": \"x\"}\n");
    INFO(name);
    CHECK(r.code == 0);
    CHECK(r.out.find(R"("type":"tool","name":"memory_store","ok":true)") != std::string::npos);
    CHECK(r.err.find("tool_name_repaired") != std::string::npos);
  }
}

TEST_CASE("an unknown tool gets the closest names and a grammar-constrained retry", "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(toolCall("memory_stor", R"({"kind":"fact","subject":"a","content":"b"})"));
  llm.addReply(
      R"({"content":"{\"name\":\"memory_store\",\"arguments\":{\"kind\":\"fact\",\"subject\":\"a\",\"content\":\"b\"}}"})");
  llm.addReply(R"({"content":"stored"})");
  Workspace ws("constrained");
  auto r = runGantry(jsonl(gantry::e2e::stdioEnv(ws, llm.port())), "{\"text\": \"x\"}\n");
  CHECK(r.code == 0);
  auto requests = llm.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[1].find("there is no tool named") != std::string::npos);
  CHECK(requests[1].find("\"response_format\"") != std::string::npos);
  CHECK(requests[1].find("\"enum\"") != std::string::npos);
  // The candidates' parameters are in the schema, so the retry keeps its arguments.
  CHECK(requests[1].find("\"description\":\"Arguments for memory_store") != std::string::npos);
  CHECK(requests[1].find("\"subject\":{") != std::string::npos);
  CHECK(r.out.find(R"("type":"tool","name":"memory_store","ok":true)") != std::string::npos);
  CHECK(r.out.find(R"({"type":"reply","text":"stored"})") != std::string::npos);
}

TEST_CASE("a constrained retry can answer in text, and only the text reaches the user", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("decline");
  for (bool stream : {false, true}) {
    llm.addReply(toolCall("memory_stor", R"({"kind":"fact","subject":"a","content":"b"})"));
    llm.addReply(
        R"({"content":"{\"name\":\"answer_in_text\",\"arguments\":{\"text\":\"I did not store it.\"}}"})");
    auto env = gantry::e2e::stdioEnv(ws, llm.port());
    if (stream) env["STREAM_REPLIES"] = "true";
    auto r = runGantry(env, "store a fact\n");
    INFO("stream=" << stream);
    CHECK(r.code == 0);
    CHECK(r.out.find("answer_in_text") == std::string::npos);
    CHECK(r.out.size() >= 20);
    CHECK(r.out.substr(r.out.size() - 20) == "I did not store it.\n");  // after the tool trace
    const auto requests = llm.requests();
    const std::string& retry = requests[requests.size() - 1];
    CHECK(retry.find(R"("enum":["memory_store","answer_in_text"])") != std::string::npos);
    CHECK(retry.find(R"("stream":false)") != std::string::npos);  // read whole, then shown
  }
}

TEST_CASE("a name close to no tool is retried with the tools, not a constrained call", "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(toolCall("remember_forever", R"({"kind":"fact","subject":"a","content":"b"})"));
  llm.addReply(R"({"content":"I have no tool for that."})");
  Workspace ws("no-candidates");
  auto r = runGantry(jsonl(gantry::e2e::stdioEnv(ws, llm.port())), "{\"text\": \"x\"}\n");
  CHECK(r.code == 0);
  auto requests = llm.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].find(R"(there is no tool named \"remember_forever\". Call one of)") !=
        std::string::npos);
  CHECK(requests[1].find("\"response_format\"") == std::string::npos);
  CHECK(requests[1].find("\"tools\":[") != std::string::npos);
  CHECK(r.out.find(R"({"type":"reply","text":"I have no tool for that."})") != std::string::npos);
}

TEST_CASE("a tool call printed as text runs and its JSON never reaches the user", "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(
      R"({"content":"```json\n{\"name\": \"memory_recall\", \"arguments\": {\"query\": \"mom\"}}\n```"})");
  llm.addReply(R"({"content":"Nothing about mom yet."})");
  Workspace ws("printed");
  for (bool stream : {false, true}) {
    auto env = gantry::e2e::stdioEnv(ws, llm.port());
    if (stream) env["STREAM_REPLIES"] = "true";
    if (stream) {
      llm.addReply(
          R"({"content":"<tool_call>{\"name\": \"memory_recall\", \"arguments\": {\"query\": \"x\"}}</tool_call>"})");
      llm.addReply(R"({"content":"Still nothing."})");
    }
    auto r = runGantry(env, "what about mom?\n");
    INFO("stream=" << stream);
    CHECK(r.code == 0);
    CHECK(r.out.find("memory_recall") == std::string::npos);
    CHECK(r.out.find(stream ? "Still nothing." : "Nothing about mom yet.") != std::string::npos);
  }
}

TEST_CASE("a think stall after tool rounds promotes the reasoning to the reply", "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(toolCall("memory_recall", R"({"query":"answer"})"));
  llm.addReply(R"({"content":"","reasoning":"The answer is 42."})");
  Workspace ws("stall");
  auto r = runGantry(gantry::e2e::stdioEnv(ws, llm.port()), "what is it?\n");
  CHECK(r.code == 0);
  CHECK(r.out.find("The answer is 42.") != std::string::npos);
  CHECK(r.err.find("think_stall_promoted") != std::string::npos);
}

TEST_CASE("after TOOL_MAX_ITERATIONS rounds one last call runs without tools", "[e2e]") {
  FakeOpenAiServer llm;
  for (int i = 0; i < 2; ++i) llm.addReply(toolCall("memory_recall", R"({"query":"x"})"));
  llm.addReply(R"({"content":"giving up on tools"})");
  Workspace ws("iterations");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["TOOL_MAX_ITERATIONS"] = "2";
  auto r = runGantry(env, "loop\n");
  CHECK(r.code == 0);
  auto requests = llm.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].find("\"tools\"") != std::string::npos);
  CHECK(requests[2].find("\"tools\"") == std::string::npos);
  CHECK(r.out.find("giving up on tools") != std::string::npos);
}

TEST_CASE("model errors reach the user as clear messages and the process carries on", "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(R"({"status":401,"error_message":"invalid api key"})");
  llm.addReply(R"({"status":429,"retry_after":1})");
  llm.addReply(R"({"content":"after the rate limit"})");
  Workspace ws("errors");
  auto r = runGantry(gantry::e2e::stdioEnv(ws, llm.port()), "one\ntwo\n");
  CHECK(r.code == 1);  // a turn failed: a script can tell
  CHECK(r.err.find("gantry: 1 turn failed") != std::string::npos);
  CHECK(r.out.find("401") != std::string::npos);
  CHECK(r.out.find("invalid api key") != std::string::npos);
  CHECK(r.out.find("after the rate limit") != std::string::npos);
}

TEST_CASE("a piped run whose every turn got its reply exits 0, one with a failed turn 1", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("exit-code");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  CHECK(runGantry(env, "fine\n").code == 0);
  llm.addReply(R"({"status":400,"error_message":"bad request"})");
  auto failed = runGantry(env, "broken\nfine again\n");
  CHECK(failed.code == 1);
  CHECK(failed.out.find("echo: fine again") != std::string::npos);  // the pipe went on
  env["LLM_BASE_URL"] = "http://127.0.0.1:1/v1";                    // the model is down
  auto down = runGantry(env, "anyone there?\n");
  CHECK(down.code == 1);
  CHECK(down.out.find("⚠️") != std::string::npos);  // answered with what failed
}

TEST_CASE("in a pipe a slash command takes its turn in order and no line is dropped", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("pipe-order");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  auto renewed = runGantry(env, "say alpha\n/new\nsay beta\n");
  CHECK(renewed.code == 0);
  CHECK(renewed.out == "echo: say alpha\nNew session started. Memory is kept.\necho: say beta\n");
  auto cancelled = runGantry(env, "say a\nsay b\n/cancel\nsay c\n");
  CHECK(cancelled.code == 0);
  CHECK(cancelled.out == "echo: say a\necho: say b\nNothing to cancel.\necho: say c\n");
  auto perf = runGantry(env, "hello\n/perf\n");
  CHECK(perf.code == 0);
  CHECK(perf.out.rfind("echo: hello\n", 0) == 0);
  CHECK(perf.out.find("No turns yet.") == std::string::npos);
}

TEST_CASE("streamed replies are written to the terminal as they arrive", "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(R"({"content":"a reply that arrives in several small pieces"})");
  Workspace ws("stream");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["STREAM_REPLIES"] = "true";
  auto r = runGantry(env, "go\n");
  CHECK(r.code == 0);
  CHECK(r.out == "a reply that arrives in several small pieces\n");
  CHECK(llm.requests().at(0).find("\"stream\":true") != std::string::npos);
}

TEST_CASE("bad configuration fails boot with one line naming the variable", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("config");
  auto base = gantry::e2e::stdioEnv(ws, llm.port());
  struct Case {
    std::string key, value, expected;
  };
  for (const auto& c : {Case{"HISTORY_MAX_MESSAGES", "abc", "HISTORY_MAX_MESSAGES: \"abc\""},
                        Case{"TOOL_TRACE", "loud", "TOOL_TRACE: \"loud\" is not one of"},
                        Case{"CHANNEL", "nosuch", "channel \"nosuch\" not found"},
                        Case{"LLM_MODEL", "", "LLM_MODEL"},
                        Case{"PERSONA_DIR", "/nonexistent", "PERSONA_DIR: /nonexistent"},
                        Case{"CRON_TZ", "Mars/Olympus", "CRON_TZ"}}) {
    auto env = base;
    if (c.value.empty()) {
      env.erase(c.key);
    } else {
      env[c.key] = c.value;
    }
    auto r = runGantry(env, "");
    INFO(c.key << "=" << c.value << " stderr: " << r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find(c.expected) != std::string::npos);
    CHECK(r.out.empty());
  }
  auto missing = base;
  missing["CHANNEL"] = "nosuch";
  auto r = runGantry(missing, "");
  CHECK(r.err.find("stdio") != std::string::npos);  // lists what exists
}

TEST_CASE("a boot error is one human line with no log records before it, unless debug", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("boot_line");
  ws.write("bad.toml", "[servers.x\ncommand = 1\n");
  auto base = gantry::e2e::stdioEnv(ws, llm.port());
  base["LOG_LEVEL"] = "info";
  struct Case {
    std::string key, value, expected;
  };
  for (const auto& c : {Case{"MCP_MANIFEST", ws.path() + "/bad.toml", "bad.toml"},
                        Case{"CRON_TZ", "Mars/Olympus", "CRON_TZ"},
                        Case{"TOOL_SCHEMA_MAX_TOKENS", "1", "TOOL_SCHEMA_MAX_TOKENS"}}) {
    auto env = base;
    env[c.key] = c.value;
    auto r = runGantry(env, "");
    INFO(c.key << "=" << c.value << " stderr: " << r.err);
    CHECK(r.code == 1);
    CHECK(r.err.rfind("gantry: ", 0) == 0);
    CHECK(r.err.find(c.expected) != std::string::npos);
    CHECK(gantry::e2e::count(r.err, "\n") == 1);
    CHECK(r.err.find("{\"ts\"") == std::string::npos);
  }
  // With LOG_LEVEL=debug what led up to it is still written, before the line.
  auto env = base;
  env["LOG_LEVEL"] = "debug";
  env["CRON_TZ"] = "Mars/Olympus";
  auto debug = runGantry(env, "");
  CHECK(debug.err.find("{\"ts\"") != std::string::npos);
  CHECK(debug.err.find("gantry: ") > debug.err.find("{\"ts\""));
}

TEST_CASE("a manifest error names the sample manifest where this binary finds it", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("example_path");
  ws.write("mcp.toml", "[[server]]\nname = \"x\"\ncommand = \"true\"\ncolour = \"red\"\n");
  auto r = runGantry(gantry::e2e::stdioEnv(ws, llm.port()), "");
  INFO(r.err);
  CHECK(r.code == 1);
  const auto at = r.err.find("every key is shown in ");
  REQUIRE(at != std::string::npos);
  const auto start = at + std::string("every key is shown in ").size();
  const std::string path = r.err.substr(start, r.err.find(')', start) - start);
  CHECK(path.size() > std::string("mcp.toml.example").size());
  CHECK(std::filesystem::exists(path));  // a checkout's etc/, or the package's examples
}

TEST_CASE("operator commands print their result, not log records, unless LOG_LEVEL=debug",
          "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("quiet_commands");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  REQUIRE(runGantry(env, "hello\n").code == 0);
  env["LOG_LEVEL"] = "info";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"doctor"}, {"tools"}, {"approvals"}, {"memory", "list"}, {"usage"}}) {
    auto r = runGantry(env, "", args);
    INFO(args[0] << " stderr: " << r.err);
    CHECK(r.code == 0);
    CHECK(r.err.find("{\"ts\"") == std::string::npos);
  }
  env["LOG_LEVEL"] = "debug";
  CHECK(runGantry(env, "", {"tools"}).err.find("{\"ts\"") != std::string::npos);
}

TEST_CASE("SIGTERM lets the in-flight turn finish, then exits 0", "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(R"({"content":"finished despite the signal","delay_ms":1500})");
  Workspace ws("sigterm");
  GantryProcess g(gantry::e2e::stdioEnv(ws, llm.port()));
  g.write("slow one\n");
  // Signal while the model is still answering (it waits 1.5 s before replying).
  for (int i = 0; i < 500 && llm.requests().empty(); ++i) std::this_thread::sleep_for(20ms);
  REQUIRE(llm.requests().size() == 1);
  g.signal(SIGTERM);
  CHECK(g.wait(30s) == 0);
  CHECK(g.out().find("finished despite the signal") != std::string::npos);
}

TEST_CASE("gantry status follows the heartbeat of the running instance", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("status");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  env["HEARTBEAT_SECONDS"] = "1";
  auto none = runGantry(env, "", {"status"});
  CHECK(none.code == 1);
  GantryProcess g(env);
  g.write("ping\n");
  REQUIRE(g.waitForOutput("echo: ", 20s));
  std::this_thread::sleep_for(1500ms);
  auto alive = runGantry(env, "", {"status"});
  INFO(alive.out << alive.err);
  CHECK(alive.code == 0);
  CHECK(alive.out.find("channel stdio: last good receive") != std::string::npos);
  CHECK(alive.out.find("model: last call ok") != std::string::npos);
  g.closeInput();
  CHECK(g.wait(20s) == 0);
  auto stopped = runGantry(env, "", {"status"});
  CHECK(stopped.code == 1);
}

TEST_CASE("gantry status does not call a just-started instance's channel failing", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("status-fresh");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  GantryProcess g(env);
  REQUIRE(g.waitForLog("\"ready\"", 20s));
  auto status = runGantry(env, "", {"status"});
  INFO(status.out << status.err);
  CHECK(status.code == 0);
  CHECK(status.out.find("failing") == std::string::npos);
  g.closeInput();
  CHECK(g.wait(20s) == 0);
}

TEST_CASE("operator commands on a file with no gantry schema say so and leave it empty", "[e2e]") {
  Workspace ws("noschema");
  auto env = gantry::e2e::stdioEnv(ws, 1);
  ws.write("data/gantry.db", "");  // new, or left by a start that never got as far
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"status"}, {"search", "tea"}, {"memory", "list"}, {"tokens"}, {"doctor"}}) {
    auto run = runGantry(env, "", args);
    INFO(args.front() << ": " << run.err);
    CHECK(run.code == 1);
    CHECK(run.err.find("holds no gantry data yet") != std::string::npos);
  }
  CHECK(std::filesystem::file_size(ws.data() + "/gantry.db") == 0);
}

TEST_CASE("version and help answer without configuration", "[e2e]") {
  auto version = runGantry({}, "", {"version"});
  CHECK(version.code == 0);
  CHECK(version.out.find("module ABI: " + std::to_string(GANTRY_ABI_VERSION)) != std::string::npos);
  auto help = runGantry({}, "", {"--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("usage: gantry") != std::string::npos);
  auto bad = runGantry({}, "", {"frobnicate"});
  CHECK(bad.code == 2);
}

TEST_CASE("SIGHUP reloads the persona for the next turn", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("sighup");
  GantryProcess g(gantry::e2e::stdioEnv(ws, llm.port()));
  g.write("before\n");
  REQUIRE(g.waitForOutput("echo: before", 20s));
  ws.write("persona/SOUL.md", "You answer like a lighthouse keeper.\n");
  g.signal(SIGHUP);
  REQUIRE(g.waitForLog("persona_reloaded", 20s));
  g.write("after\n");
  REQUIRE(g.waitForOutput("echo: after", 20s));
  g.closeInput();
  CHECK(g.wait(20s) == 0);
  auto requests = llm.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].find("lighthouse keeper") == std::string::npos);
  CHECK(requests[1].find("lighthouse keeper") != std::string::npos);
}

TEST_CASE("gantry doctor checks the database and --repair closes orphaned calls", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("doctor");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  CHECK(runGantry(env, "", {"doctor"}).code == 1);  // no database yet
  REQUIRE(runGantry(env, "hello\n").code == 0);
  auto check = runGantry(env, "", {"doctor"});
  CHECK(check.code == 0);
  CHECK(check.out.find("fts (memory, messages): ok") != std::string::npos);
  auto repair = runGantry(env, "", {"doctor", "--repair"});
  CHECK(repair.code == 0);
  CHECK(repair.out.find("tool calls closed: 0") != std::string::npos);
  CHECK(runGantry(env, "", {"doctor", "--frobnicate"}).code == 2);
}

TEST_CASE("gantry doctor --repair is refused while the instance is running", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("doctor-live");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  GantryProcess g(env);
  REQUIRE(g.waitForLog("\"ready\"", 20s));
  auto refused = runGantry(env, "", {"doctor", "--repair"});
  CHECK(refused.code == 1);
  CHECK(refused.err.find("--repair refused: the instance using") != std::string::npos);
  CHECK(refused.out.find("tool calls closed") == std::string::npos);
  CHECK(runGantry(env, "", {"doctor"}).code == 0);  // the check alone is safe
  g.closeInput();
  REQUIRE(g.wait(20s) == 0);
  auto repaired = runGantry(env, "", {"doctor", "--repair"});
  CHECK(repaired.code == 0);
}

TEST_CASE("gantry search prints the matching messages of the record, one per line", "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(R"({"content":"Noted: the umbrella is in the hall."})");
  Workspace ws("search");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  REQUIRE(runGantry(env, "where did I leave the umbrella?\n").code == 0);
  auto found = runGantry(env, "", {"search", "umbrella", "--limit", "5"});
  INFO(found.err);
  CHECK(found.code == 0);
  CHECK(count(found.out, "\n") == 2);
  CHECK(found.out.find("\tuser\t") != std::string::npos);
  CHECK(found.out.find("\tassistant\t") != std::string::npos);
  CHECK(found.out.find("[umbrella]") != std::string::npos);
  CHECK(runGantry(env, "", {"search"}).code == 2);
  CHECK(runGantry(env, "", {"search", "x", "--limit", "zero"}).code == 2);
}

TEST_CASE("every model call leaves a usage row, and gantry usage prints the day's totals by model",
          "[e2e]") {
  FakeOpenAiServer llm;
  llm.addReply(
      R"({"content":"one","model":"served-model:q4","usage":{"prompt_tokens":120,"completion_tokens":7,"cached_tokens":100}})");
  llm.addReply(R"({"content":"two","usage":{"prompt_tokens":130,"completion_tokens":8}})");
  Workspace ws("usage");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  REQUIRE(runGantry(env, "first\nsecond\n").code == 0);
  auto status = runGantry(env, "/status\n");
  CHECK(status.out.find("today: 2 model calls, 250 prompt / 15 completion tokens") !=
        std::string::npos);
  auto usage = runGantry(env, "", {"usage", "--days", "1"});
  INFO(usage.err);
  CHECK(usage.code == 0);
  // One row per model the responses named, each with its own calls and tokens.
  CHECK(usage.out.find("\tserved-model:q4\t1\t120\t7\t100\n") != std::string::npos);
  CHECK(usage.out.find("\t" + env.at("LLM_MODEL") + "\t1\t130\t8\t0\n") != std::string::npos);
  CHECK(gantry::e2e::count(usage.out, "\n") == 2);
  // The model as the endpoint named it in its response, else the configured one.
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2((ws.data() + "/gantry.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) ==
          SQLITE_OK);
  std::vector<std::string> models;
  sqlite3_stmt* stmt = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT model FROM usage ORDER BY id", -1, &stmt, nullptr) ==
          SQLITE_OK);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    models.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  CHECK(models == std::vector<std::string>{"served-model:q4", env.at("LLM_MODEL")});
  CHECK(runGantry(env, "", {"usage", "--days", "0"}).code == 2);
}

TEST_CASE("RECORD_KEEP_DAYS prunes the old record at boot and keeps the history", "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("prune");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  REQUIRE(runGantry(env, "ancient message\n").code == 0);
  REQUIRE(runGantry(env, "/new\n").code == 0);
  REQUIRE(runGantry(env, "fresh message\n").code == 0);
  // Make every row ten days old, as if the instance had run then.
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((ws.data() + "/gantry.db").c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db,
                       "UPDATE messages SET created_at = created_at - 864000000;"
                       "UPDATE usage SET at = at - 864000000;",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  env["RECORD_KEEP_DAYS"] = "7";
  auto pruned = runGantry(env, "");
  INFO(pruned.err);
  CHECK(pruned.err.find(R"("msg":"record_pruned","messages":"2")") != std::string::npos);
  CHECK(runGantry(env, "", {"search", "ancient"}).out.empty());
  CHECK(runGantry(env, "", {"search", "fresh"}).out.find("\tuser\t") != std::string::npos);
  CHECK(runGantry(env, "", {"usage", "--days", "30"}).out.empty());
}

TEST_CASE("the start after a kill runs quick_check, the start after a clean stop does not",
          "[e2e]") {
  FakeOpenAiServer llm;
  Workspace ws("unclean");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  const std::string checked = R"("msg":"store_quick_check")";
  auto first = runGantry(env, "hello\n");  // a new file has no clean-stop mark
  REQUIRE(first.code == 0);
  CHECK(first.err.find(checked) != std::string::npos);
  CHECK(first.err.find(R"("reason":"new file")") != std::string::npos);
  auto clean = runGantry(env, "hello again\n");
  REQUIRE(clean.code == 0);
  CHECK(clean.err.find(checked) == std::string::npos);
  {
    GantryProcess killed(env);
    REQUIRE(killed.waitForLog("\"ready\"", 20s));
    killed.signal(SIGKILL);
    killed.wait(10s);
  }
  auto after_kill = runGantry(env, "still there?\n");
  CHECK(after_kill.code == 0);
  CHECK(after_kill.err.find(checked) != std::string::npos);
  CHECK(after_kill.err.find(R"("reason":"no clean stop")") != std::string::npos);
  CHECK(after_kill.out == "echo: still there?\n");
}

TEST_CASE("a credential bound for plain http to a host that is not loopback stops boot",
          "[e2e][attack]") {
  FakeOpenAiServer llm;
  Workspace ws("plain-http");
  auto env = gantry::e2e::stdioEnv(ws, llm.port());
  // Nothing is ever sent there: boot stops before any connection (203.0.113.0/24 is TEST-NET-3).
  auto remote = env;
  remote["LLM_BASE_URL"] = "http://203.0.113.5:8080/v1";
  remote["LLM_API_KEY"] = "sk-plain-http-test";
  auto r = runGantry(remote, "hello\n");
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find("LLM_BASE_URL=http://203.0.113.5:8080/v1 would send LLM_API_KEY in clear") !=
        std::string::npos);
  CHECK(r.err.find("ALLOW_INSECURE_HTTP=true") != std::string::npos);
  CHECK(r.out.empty());
  CHECK(llm.requests().empty());

  ws.write("remote-mcp.toml",
           "[[server]]\nname = \"remote\"\nurl = \"http://203.0.113.5/mcp\"\n"
           "headers = { Authorization = \"Bearer tok-plain-http\" }\n");
  auto manifest = env;
  manifest["MCP_MANIFEST"] = ws.path() + "/remote-mcp.toml";
  auto m = runGantry(manifest, "hello\n");
  INFO(m.err);
  CHECK(m.code == 1);
  CHECK(m.err.find("MCP server remote: url http://203.0.113.5/mcp would send its headers in "
                   "clear") != std::string::npos);
  // Loopback over plain http is the local model server's normal case, key or not.
  auto local = env;
  local["LLM_API_KEY"] = "sk-loopback";
  CHECK(runGantry(local, "hello\n").code == 0);
}
