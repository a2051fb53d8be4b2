// End to end: a 300-message conversation through the real gantry binary (CHANNEL=stdio in
// pipe mode) against the fake OpenAI-compatible server, with small history caps. Shows the
// request size staying bounded, the rolling summary carried forward, and a fact stored by a
// memory_store call at message 5 recalled (hydrated) at message 290.

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>

#include "e2e/support/gantry_process.h"
#include "openai/fake_openai_server.h"
#include "store/memory_repo.h"
#include "store/session_repo.h"

using gantry::e2e::Env;
using gantry::e2e::Workspace;
using gantry::testing::FakeOpenAiServer;

namespace {

constexpr int kMessages = 300;
constexpr int kMaxHistory = 12;
const char* kFact = "the user's sister, lives in Lisbon";
const char* kQuestion = "Where does my sister Ann live these days?";

Env environment(const Workspace& workspace, const FakeOpenAiServer& llm) {
  Env env = gantry::e2e::stdioEnv(workspace, llm.port());
  env["PROVIDER"] = "openai";
  env["STDIO_FORMAT"] = "text";
  env["LLM_API_KEY"] = "test-key";
  env["GANTRY_MODULE_DIR"] = std::string(GANTRY_BUILD_DIR) + "/modules";
  env["HISTORY_MAX_MESSAGES"] = std::to_string(kMaxHistory);
  env["HISTORY_MAX_TOKENS"] = "1500";
  env["CRON_ENABLED"] = "false";
  env["COALESCE_SETTLE_MS"] = "0";
  env["LOG_LEVEL"] = "warn";
  return env;
}

std::string messageText(int n) {
  if (n == 5) return "My sister Ann lives in Lisbon now, please remember that.";
  if (n == 290) return kQuestion;
  return "message " + std::to_string(n) + ": an ordinary remark about the weather, the garden " +
         "and the week ahead, long enough to count against the token estimate.";
}

struct Request {
  std::size_t bytes = 0;
  std::size_t messages = 0;
  bool fold = false;  // a rolling-summary request, not a turn
  std::string last_user;
  std::string system;  // the first message when it is a system message
  std::string body;
};

Request parse(const std::string& body) {
  Poco::JSON::Parser parser;
  auto object = parser.parse(body).extract<Poco::JSON::Object::Ptr>();
  auto messages = object->getArray("messages");
  Request request{body.size(), messages->size(), false, "", "", body};
  for (std::size_t i = 0; i < messages->size(); ++i) {
    auto message = messages->getObject(static_cast<unsigned>(i));
    auto value = message->get("content");  // null on assistant tool-call messages
    std::string content = value.isString() ? value.toString() : "";
    if (message->getValue<std::string>("role") == "user") request.last_user = content;
    if (i == 0 && message->getValue<std::string>("role") == "system") request.system = content;
    if (i == 0 && content.find("running summary") != std::string::npos) request.fold = true;
  }
  return request;
}

}  // namespace

TEST_CASE("a 300-message conversation stays bounded and recalls a fact from message 5",
          "[e2e][memory]") {
  Workspace workspace("memory");
  FakeOpenAiServer llm;
  for (int i = 1; i <= 4; ++i) llm.addReply(R"({"content":"ok"})");
  llm.addReply(R"({"tool_calls":[{"id":"call_5","name":"memory_store","arguments":)"
               R"("{\"kind\":\"person\",\"subject\":\"Ann\",\"content\":\")" +
               std::string(kFact) + R"(\"}"}]})");
  llm.addReply(R"({"content":"noted"})");
  // Everything after that (turns and summary folds) gets the fake's echo reply.

  std::string input;
  for (int n = 1; n <= kMessages; ++n) input += messageText(n) + "\n";
  // The timeout is generous, only to avoid a hang.
  auto run = gantry::e2e::runGantry(environment(workspace, llm), input, {"run"},
                                    std::chrono::seconds(540));
  INFO(run.err.substr(0, 4000));
  REQUIRE(run.code == 0);

  std::vector<Request> turns, folds;
  for (const auto& body : llm.requests()) (parse(body).fold ? folds : turns).push_back(parse(body));
  REQUIRE(turns.size() >= static_cast<std::size_t>(kMessages));
  CHECK_FALSE(folds.empty());

  // Bounded: no turn request carries more than the history cap plus the system and
  // current-message parts, and late requests are no larger than a bound fixed up front.
  std::size_t largest = 0;
  for (const auto& turn : turns) {
    CHECK(turn.messages <= static_cast<std::size_t>(kMaxHistory) + 4);
    largest = std::max(largest, turn.bytes);
  }
  CHECK(largest < 24000);

  // The fact stored at message 5 is hydrated into the request of message 290.
  auto asked = std::find_if(turns.begin(), turns.end(), [](const Request& r) {
    return r.last_user.find(kQuestion) != std::string::npos;
  });
  REQUIRE(asked != turns.end());
  // The block rides on the user message it was first sent with (messages are recorded as
  // sent), so it is in the request, not necessarily in front of the question.
  CHECK(asked->body.find("- (person) Ann: " + std::string(kFact)) != std::string::npos);

  auto store = gantry::store::Store::open(workspace.data() + "/gantry.db");
  REQUIRE(store.isOk());
  gantry::store::MemoryRepo memory(*store.value());
  auto rows = memory.list();
  REQUIRE(rows.isOk());
  REQUIRE(rows.value().size() == 1);
  CHECK(rows.value()[0].source == "chat");

  // The session's rolling summary exists, and the last turn carried a summary in its system
  // block (folds run after replies, so the newest may have committed after the last turn).
  auto summaries = gantry::store::SessionRepo(*store.value()).recentSummaries(0, 5);
  REQUIRE(summaries.isOk());
  REQUIRE(summaries.value().size() == 1);
  const std::string& summary = summaries.value()[0].summary;
  CHECK_FALSE(summary.empty());
  CHECK(turns.back().system.find("summary") != std::string::npos);
  CHECK(asked->system.find("summary") != std::string::npos);
}

TEST_CASE("a memory that contradicts the persona is not sent, and the owner is told once",
          "[e2e][memory]") {
  Workspace workspace("persona_conflict");
  const std::string line = "- Hates tea; drinks coffee.";
  workspace.write("persona/USER.md", "# About the owner\n" + line + "\n");
  int64_t tea = 0;
  {
    auto store = gantry::store::Store::open(workspace.data() + "/gantry.db");
    REQUIRE(store.isOk());
    gantry::store::MemoryRepo memory(*store.value());
    tea = memory.insert({"preference", "tea", "loves tea", "chat", 1.0, 0}).value();
    REQUIRE(memory.insert({"fact", "garden", "grows basil", "chat", 1.0, 0}).isOk());
    REQUIRE(memory.insertConflict("tea", "loves tea", line, tea).isOk());
  }
  FakeOpenAiServer llm;
  llm.addReply(R"({"content":"first reply"})");
  llm.addReply(R"({"content":"second reply"})");
  llm.addReply(R"({"content":"third reply"})");
  auto env = environment(workspace, llm);
  auto run = gantry::e2e::runGantry(env, "Shall I make tea?\nAnd the garden, tea?\n");
  INFO(run.err.substr(0, 4000));
  REQUIRE(run.code == 0);
  const std::string id = std::to_string(tea);
  CHECK(gantry::e2e::count(run.out, "Memory #" + id + " contradicts your persona") == 1);
  CHECK(run.out.find(line) != std::string::npos);
  CHECK(run.out.find("gantry memory forget " + id) != std::string::npos);
  CHECK(run.out.find("edit the persona") != std::string::npos);
  CHECK(run.out.find("Memory #") < run.out.find("first reply"));

  auto requests = llm.requests();
  REQUIRE(requests.size() == 2);
  for (const auto& body : requests) {
    const Request request = parse(body);
    CHECK(body.find("loves tea") == std::string::npos);
    CHECK(body.find("grows basil") != std::string::npos);
    CHECK(request.system.find("The persona above outranks them") != std::string::npos);
  }

  // Told once: a later run says nothing more, and still withholds the row.
  auto again = gantry::e2e::runGantry(env, "Tea?\n");
  REQUIRE(again.code == 0);
  CHECK(again.out.find("Memory #") == std::string::npos);
  CHECK(llm.requests().back().find("loves tea") == std::string::npos);
}
