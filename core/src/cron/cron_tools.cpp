#include "cron/cron_tools.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <sstream>

#include "cron/schedule.h"
#include "tools/arguments.h"

namespace gantry::cron {
namespace {

using tools::ToolResult;

constexpr std::size_t kMaxPromptChars = 4000;

const char* const kAddParameters =
    R"json({"type":"object","properties":{"schedule":{"type":"string","description":"5-field cron )json"
    R"json((minute hour day-of-month month day-of-week, e.g. \"30 7 * * 1-5\"), @hourly, @daily, )json"
    R"json(@weekly, @monthly, @yearly, @every <duration> (e.g. \"@every 2h\"), or a one-shot local )json"
    R"json(time YYYY-MM-DDTHH:MM (e.g. \"2026-12-01T09:00\")"},"prompt":{"type":"string",)json"
    R"json("description":"what to do when the job runs, written as an instruction to yourself"}},)json"
    R"json("required":["schedule","prompt"],"additionalProperties":false})json";
const char* const kListParameters =
    R"json({"type":"object","properties":{},"additionalProperties":false})json";
const char* const kRemoveParameters =
    R"json({"type":"object","properties":{"id":{"type":"integer","description":"the job id shown )json"
    R"json(by cron_list"}},"required":["id"],"additionalProperties":false})json";

ToolResult fail(std::string text) { return {false, std::move(text)}; }

}  // namespace

CronTools::CronTools(store::Store& store, Zone zone, int max_jobs, Clock clock, OnAdded on_added)
    : repo_(store),
      zone_(std::move(zone)),
      max_jobs_(max_jobs),
      clock_(clock ? std::move(clock) : Clock(store::nowMs)),
      on_added_(std::move(on_added)),
      tools_(schemas(zone_)) {}

ToolList CronTools::tools() const { return tools_; }

ToolList CronTools::schemas(const Zone& zone) {
  return makeToolList({
      {"cron_add",
       "Schedule a future turn: at each run, prompt is executed as a new turn in this chat and "
       "the reply is sent here. Times are local to " +
           zone.name + ". One-shot times run once and are then removed.",
       kAddParameters},
      {"cron_list", "List the scheduled jobs of this chat with their next run.", kListParameters},
      {"cron_remove", "Remove a scheduled job of this chat by id.", kRemoveParameters},
  });
}

ToolResult CronTools::call(const std::string& name, const std::string& arguments_json,
                           const tools::CallContext& context) {
  try {
    if (context.chat_id.empty()) return fail(name + ": no chat to deliver job replies to");
    Result<Poco::JSON::Object::Ptr> args = tools::parseArguments(arguments_json);
    if (!args.isOk()) return fail(name + ": " + args.status().message());
    if (name == "cron_add") return add(*args.value(), context.chat_id);
    if (name == "cron_list") return list(context.chat_id);
    if (name == "cron_remove") return remove(*args.value(), context.chat_id);
    return fail("cron: unknown tool " + name + " (cron_add, cron_list, cron_remove)");
  } catch (const std::exception& e) {
    return fail(name + ": " + e.what());
  }
}

// Validates the arguments and builds the job to insert; errors are texts for the model.
Result<store::CronJob> CronTools::newJob(const Poco::JSON::Object& args,
                                         const std::string& chat_id) const {
  std::optional<std::string> text = tools::stringArgument(args, "schedule");
  std::optional<std::string> prompt = tools::stringArgument(args, "prompt");
  if (!text)
    return Status::error(R"(cron_add: "schedule" must be a string such as "30 7 * * 1-5")");
  if (!prompt || prompt->find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::error(R"(cron_add: "prompt" must be a non-empty string)");
  }
  if (prompt->size() > kMaxPromptChars) {
    return Status::error("cron_add: prompt is longer than " + std::to_string(kMaxPromptChars) +
                         " characters; shorten it");
  }
  Result<Schedule> schedule = parseSchedule(*text);
  if (!schedule.isOk()) return schedule.status();
  int64_t now = clock_();
  std::optional<int64_t> next = nextRunMs(schedule.value(), now, zone_.tz, now);
  if (!next) {
    return Status::error("cron: one-shot time \"" + schedule->text + "\" has already passed in " +
                         zone_.name + " (now " + formatLocal(now, zone_.tz) +
                         "); give a future time");
  }
  store::CronJob job;
  job.chat_id = chat_id;
  job.schedule = schedule->text;
  job.prompt = *prompt;
  job.created_at = now;
  job.next_run_at = next;
  return job;
}

ToolResult CronTools::add(const Poco::JSON::Object& args, const std::string& chat_id) {
  Result<store::CronJob> job = newJob(args, chat_id);
  if (!job.isOk()) return fail(job.status().message());
  Result<std::optional<int64_t>> id = repo_.addWithinLimit(job.value(), max_jobs_);
  if (!id.isOk()) return fail(id.status().message());
  if (!id.value()) {
    return fail("cron_add: already " + std::to_string(max_jobs_) +
                " jobs, the most CRON_MAX_JOBS allows; remove one with cron_remove first");
  }
  job->id = *id.value();
  if (on_added_) on_added_();
  Result<Schedule> schedule = parseSchedule(job->schedule);
  bool once = schedule.isOk() && schedule->kind == ScheduleKind::kOnce;
  return {true, "added cron job " + std::to_string(job->id) + " (" + job->schedule + "): " +
                    describeNext(job.value()) + (once ? "; it runs once, then is removed" : "")};
}

std::string CronTools::describeNext(const store::CronJob& job) const {
  if (!job.next_run_at) return "no further run";
  return "next run " + formatLocal(*job.next_run_at, zone_.tz) + " " + zone_.name;
}

ToolResult CronTools::list(const std::string& chat_id) {
  Result<std::vector<store::CronJob>> jobs = repo_.list(chat_id);
  if (!jobs.isOk()) return fail(jobs.status().message());
  Poco::JSON::Array rows;
  for (const store::CronJob& job : jobs.value()) {
    Poco::JSON::Object row(Poco::JSON_PRESERVE_KEY_ORDER);
    row.set("id", job.id);
    row.set("schedule", job.schedule);
    row.set("next_run", job.next_run_at ? formatLocal(*job.next_run_at, zone_.tz) : "none");
    row.set("prompt", job.prompt);
    rows.add(row);
  }
  Poco::JSON::Object out(Poco::JSON_PRESERVE_KEY_ORDER);
  out.set("timezone", zone_.name);
  out.set("jobs", rows);
  std::ostringstream text;
  out.stringify(text);
  return {true, text.str()};
}

ToolResult CronTools::remove(const Poco::JSON::Object& args, const std::string& chat_id) {
  std::optional<int64_t> id = tools::integerArgument(args, "id");
  if (!id) return fail(R"(cron_remove: "id" must be a job id (an integer) from cron_list)");
  Result<std::optional<store::CronJob>> job = repo_.get(*id);
  if (!job.isOk()) return fail(job.status().message());
  if (!job.value() || job.value()->chat_id != chat_id) {
    return fail("cron_remove: no job " + std::to_string(*id) +
                " in this chat; cron_list shows the ids");
  }
  Result<bool> removed = repo_.remove(*id);
  if (!removed.isOk()) return fail(removed.status().message());
  return {true, "removed cron job " + std::to_string(*id) + " (" + job.value()->schedule + ")"};
}

}  // namespace gantry::cron
