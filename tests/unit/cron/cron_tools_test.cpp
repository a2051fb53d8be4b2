#include "cron/cron_tools.h"

#include <Poco/JSON/Parser.h>

#include <catch2/catch.hpp>

#include "cron_test_util.h"

using gantry::cron::CronTools;
using gantry::tools::CallContext;

namespace {

// 2026-11-30T22:40:00Z, a Monday.
constexpr int64_t kNow = 1796078400000;

gantry::cron::Zone zone(const std::string& name) {
  auto z = gantry::cron::loadCronZone(name);
  REQUIRE(z.isOk());
  return z.value();
}

CallContext chat(const std::string& id) {
  CallContext c;
  c.chat_id = id;
  return c;
}

struct Fixture {
  explicit Fixture(const std::string& name, int max_jobs = 50,
                   const std::string& tz = "Europe/Berlin")
      : store(gantry::cron::test::openStore(gantry::cron::test::tempDbPath(name))),
        tools(*store, zone(tz), max_jobs, [] { return kNow; }) {}
  gantry::tools::ToolResult add(const std::string& schedule, const std::string& prompt = "ping",
                                const std::string& chat_id = "chat-1") {
    return tools.call("cron_add",
                      R"({"schedule":")" + schedule + R"(","prompt":")" + prompt + R"("})",
                      chat(chat_id));
  }
  std::unique_ptr<gantry::store::Store> store;
  CronTools tools;
};

}  // namespace

TEST_CASE("the cron tools publish valid JSON Schemas", "[cron][tools]") {
  Fixture f("tools_schema");
  const auto list = f.tools.tools();
  const auto& schemas = *list;
  REQUIRE(schemas.size() == 3);
  CHECK(schemas[0].name == "cron_add");
  CHECK(schemas[1].name == "cron_list");
  CHECK(schemas[2].name == "cron_remove");
  for (const auto& s : schemas) {
    INFO(s.name);
    auto parsed = Poco::JSON::Parser().parse(s.parameters_json);
    auto object = parsed.extract<Poco::JSON::Object::Ptr>();
    CHECK(object->getValue<std::string>("type") == "object");
  }
  CHECK(schemas[0].description.find("Europe/Berlin") != std::string::npos);
  CHECK(f.tools.tools() == list);  // the same list while the tools stay the same
}

TEST_CASE("cron_add stores a job for the calling chat with its next run", "[cron][tools]") {
  Fixture f("tools_add");
  auto r = f.add("30 7 * * 1-5", "summarise my calendar");
  INFO(r.text);
  REQUIRE(r.ok);
  // 23:40 Berlin on Monday -> Tuesday 07:30.
  CHECK(r.text == "added cron job 1 (30 7 * * 1-5): next run 2026-12-01T07:30 Europe/Berlin");
  gantry::store::CronRepo repo(*f.store);
  auto job = repo.get(1).value();
  REQUIRE(job.has_value());
  CHECK(job->chat_id == "chat-1");
  CHECK(job->prompt == "summarise my calendar");
  CHECK(job->created_at == kNow);
}

TEST_CASE("cron_list shows only the calling chat's jobs, cron_remove removes them",
          "[cron][tools]") {
  Fixture f("tools_list");
  REQUIRE(f.add("@daily", "a").ok);
  REQUIRE(f.add("2026-12-01T09:00", "b", "chat-2").ok);
  auto listed = f.tools.call("cron_list", "{}", chat("chat-1"));
  REQUIRE(listed.ok);
  CHECK(
      listed.text ==
      R"({"timezone":"Europe/Berlin","jobs":[{"id":1,"schedule":"@daily","next_run":"2026-12-01T00:00","prompt":"a"}]})");
  CHECK(f.tools.call("cron_list", "", chat("chat-3")).text ==
        R"({"timezone":"Europe/Berlin","jobs":[]})");

  auto other = f.tools.call("cron_remove", R"({"id":2})", chat("chat-1"));
  CHECK(!other.ok);
  CHECK(other.text == "cron_remove: no job 2 in this chat; cron_list shows the ids");
  auto removed = f.tools.call("cron_remove", R"({"id":"2"})", chat("chat-2"));
  CHECK(removed.ok);
  CHECK(removed.text == "removed cron job 2 (2026-12-01T09:00)");
  CHECK(gantry::store::CronRepo(*f.store).count().value() == 1);
}

TEST_CASE("cron_add refuses past CRON_MAX_JOBS with a clear error", "[cron][tools]") {
  Fixture f("tools_max", 2);
  REQUIRE(f.add("@hourly").ok);
  REQUIRE(f.add("@daily", "x", "chat-2").ok);
  auto r = f.add("@weekly");
  CHECK(!r.ok);
  CHECK(r.text ==
        "cron_add: already 2 jobs, the most CRON_MAX_JOBS allows; remove one with cron_remove "
        "first");
}

TEST_CASE("cron_add reports an invalid schedule with the parser's precise error", "[cron][tools]") {
  Fixture f("tools_invalid");
  auto r = f.add("0 25 * * *");
  CHECK(!r.ok);
  CHECK(r.text == R"(cron: field 2 (hour) value 25 out of range 0-23 in "0 25 * * *")");
  auto past = f.add("2026-11-30T09:00");
  CHECK(!past.ok);
  CHECK(
      past.text ==
      R"(cron: one-shot time "2026-11-30T09:00" has already passed in Europe/Berlin (now 2026-11-30T23:40); give a future time)");
  CHECK(gantry::store::CronRepo(*f.store).count().value() == 0);
}

TEST_CASE("bad arguments to the cron tools are clear errors", "[cron][tools]") {
  Fixture f("tools_badargs");
  auto bad_json = f.tools.call("cron_add", "{schedule: 1", chat("c"));
  CHECK(!bad_json.ok);
  CHECK(bad_json.text.rfind("cron_add: the arguments are not valid JSON", 0) == 0);
  auto array = f.tools.call("cron_add", "[1]", chat("c"));
  CHECK(array.text ==
        "cron_add: the arguments must be a JSON object matching the tool's parameters");
  auto missing = f.tools.call("cron_add", R"({"prompt":"x"})", chat("c"));
  CHECK(missing.text == R"(cron_add: "schedule" must be a string such as "30 7 * * 1-5")");
  auto empty = f.tools.call("cron_add", R"({"schedule":"@daily","prompt":" "})", chat("c"));
  CHECK(empty.text == R"(cron_add: "prompt" must be a non-empty string)");
  auto no_id = f.tools.call("cron_remove", R"({"id":"three"})", chat("c"));
  CHECK(no_id.text == R"(cron_remove: "id" must be a job id (an integer) from cron_list)");
  auto no_chat = f.tools.call("cron_add", R"({"schedule":"@daily","prompt":"x"})", CallContext{});
  CHECK(!no_chat.ok);
  CHECK(no_chat.text == "cron_add: no chat to deliver job replies to");
}
