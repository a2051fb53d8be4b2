#include "watch/watch_tools.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>

#include <algorithm>
#include <sstream>

#include "cron/schedule.h"
#include "gantry/text/trim.h"
#include "tools/arguments.h"
#include "watch/items.h"
#include "watch/watch_call.h"

namespace gantry::watch {
namespace {

using Poco::JSON::Object;
using tools::ToolResult;

constexpr std::size_t kMaxPromptChars = 4000;
constexpr std::size_t kMaxArgumentChars = 4000;

const char* const kAddParameters =
    R"json({"type":"object","properties":{"tool":{"type":"string","description":"the MCP tool )json"
    R"json(to poll, by its published name (e.g. \"feeds__list_items\")"},"arguments":{"type":)json"
    R"json("object","description":"the tool's arguments, as for a call to it"},"every":{"type":)json"
    R"json("string","description":"how often to poll: \"90s\", \"15m\", \"2h\", or a number of )json"
    R"json(seconds; give every or schedule"},"schedule":{"type":"string","description":"when to )json"
    R"json(poll, as for cron_add (e.g. \"*/30 7-22 * * *\"); give every or schedule"},"prompt":)json"
    R"json({"type":"string","description":"what to do with new items, written as an instruction )json"
    R"json(to yourself; the new items follow it"},"items":{"type":"object","description":"where )json"
    R"json(the items are when the result is not simply a list","properties":{"array":{"type":)json"
    R"json("string","description":"JSON pointer to the list in the result, e.g. \"/entries\""},)json"
    R"json("id":{"type":"string","description":"JSON pointer to an item's id within the item, )json"
    R"json(e.g. \"/guid\""}},"additionalProperties":false}},"required":["tool","prompt"],)json"
    R"json("additionalProperties":false})json";
const char* const kListParameters =
    R"json({"type":"object","properties":{},"additionalProperties":false})json";
const char* const kRemoveParameters =
    R"json({"type":"object","properties":{"id":{"type":"integer","description":"the watch id )json"
    R"json(shown by watch_list"}},"required":["id"],"additionalProperties":false})json";

ToolResult fail(std::string text) { return {false, std::move(text)}; }

std::string stringify(const Poco::Dynamic::Var& value) {
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(value, out);
  return out.str();
}

/// `arguments` as canonical JSON: an object (or a string holding one); absent is {}.
Result<std::string> readArguments(const Object& args) {
  if (!args.has("arguments") || args.get("arguments").isEmpty()) return std::string("{}");
  const Poco::Dynamic::Var value = args.get("arguments");
  std::string text = value.isString() ? value.extract<std::string>() : stringify(value);
  Result<std::string> canonical = tools::canonicalArguments(text);
  if (!canonical.isOk()) {
    return Status::error("watch_add: \"arguments\": " + canonical.status().message());
  }
  if (canonical->size() > kMaxArgumentChars) {
    return Status::error("watch_add: \"arguments\" is longer than " +
                         std::to_string(kMaxArgumentChars) + " characters");
  }
  if (tools::holdsRedactionMarker(canonical.value())) {
    return Status::error(
        "watch_add: \"arguments\" contain a [redacted:…] marker, which stands for a secret you "
        "cannot see; ask the user instead of passing the marker on");
  }
  return canonical;
}

Status readItems(const Object& args, store::Watch& w) {
  if (!args.has("items") || args.get("items").isEmpty()) return Status::ok();
  Object::Ptr items = args.getObject("items");
  if (items.isNull()) {
    return Status::error(R"(watch_add: "items" must be an object such as {"array":"/entries"})");
  }
  w.items_pointer = items->optValue<std::string>("array", "");
  w.id_pointer = items->optValue<std::string>("id", "");
  Status s = checkPointer(w.items_pointer, "watch_add: items.array");
  return s.isOk() ? checkPointer(w.id_pointer, "watch_add: items.id") : s;
}

Status readPrompt(const Object& args, store::Watch& w) {
  std::optional<std::string> prompt = tools::stringArgument(args, "prompt");
  if (!prompt || text::trim(*prompt).empty()) {
    return Status::error(R"(watch_add: "prompt" must be a non-empty string)");
  }
  if (prompt->size() > kMaxPromptChars) {
    return Status::error("watch_add: prompt is longer than " + std::to_string(kMaxPromptChars) +
                         " characters; shorten it");
  }
  w.prompt = *prompt;
  return Status::ok();
}

std::string everyText(const Object& args) {
  const Poco::Dynamic::Var value = args.get("every");
  return value.isString() ? value.extract<std::string>() : value.toString();
}

}  // namespace

WatchTools::WatchTools(store::Store& store, const tools::Catalog& catalog, cron::Zone zone,
                       WatchOptions options, OnAdded on_added, Clock clock)
    : repo_(store),
      catalog_(catalog),
      zone_(std::move(zone)),
      options_(options),
      on_added_(std::move(on_added)),
      clock_(clock ? std::move(clock) : Clock(store::nowMs)),
      tools_(makeToolList({
          {"watch_add",
           "Watch an MCP tool without spending anything: the host calls it on the interval "
           "and starts a turn in this chat only when its result holds new items (the first "
           "call only records what is there). The turn gets prompt, then only the new items. "
           "Times are local to " +
               zone_.name + ".",
           kAddParameters},
          {"watch_list", "List the watches of this chat with their state and next poll.",
           kListParameters},
          {"watch_remove", "Remove a watch of this chat by id.", kRemoveParameters},
      })) {}

ToolList WatchTools::tools() const { return tools_; }

ToolResult WatchTools::call(const std::string& name, const std::string& arguments_json,
                            const tools::CallContext& context) {
  try {
    if (context.chat_id.empty()) return fail(name + ": no chat to deliver watch turns to");
    Result<Object::Ptr> args = tools::parseArguments(arguments_json);
    if (!args.isOk()) return fail(name + ": " + args.status().message());
    if (name == "watch_add") return add(*args.value(), context.chat_id);
    if (name == "watch_list") return list(context.chat_id);
    if (name == "watch_remove") return remove(*args.value(), context.chat_id);
    return fail("watch: unknown tool " + name + " (watch_add, watch_list, watch_remove)");
  } catch (const std::exception& e) {
    return fail(name + ": " + e.what());
  }
}

Result<WatchTools::Interval> WatchTools::interval(const Object& args) const {
  const bool every = args.has("every") && !args.get("every").isEmpty();
  const bool scheduled = args.has("schedule") && !args.get("schedule").isEmpty();
  if (every == scheduled) {
    return Status::error(
        R"(watch_add: give exactly one of "every" (e.g. "15m") and "schedule" (e.g. "0 8 * * *"))");
  }
  Interval out;
  const int64_t min = options_.min_seconds;
  const std::string raised =
      " (raised to the minimum of " + formatSeconds(min) + " that WATCH_MIN_SECONDS allows)";
  if (every) {
    Result<int64_t> seconds = parseEverySeconds(everyText(args));
    if (!seconds.isOk()) return seconds.status();
    out.every_seconds = std::max(seconds.value(), min);
    if (seconds.value() < min) out.note = raised;
    return out;
  }
  Result<cron::Schedule> schedule =
      cron::parseSchedule(tools::stringArgument(args, "schedule").value_or(""));
  if (!schedule.isOk()) return Status::error("watch_add: " + schedule.status().message());
  if (schedule->kind == cron::ScheduleKind::kOnce) {
    return Status::error(
        "watch_add: a watch polls again and again; give a repeating schedule "
        "or \"every\", not a one-shot time");
  }
  out.schedule = schedule->text;
  const int64_t now = clock_();
  auto first = cron::nextRunMs(schedule.value(), now, zone_.tz, now);
  auto second = first ? cron::nextRunMs(schedule.value(), *first, zone_.tz, *first) : first;
  if (first && second && *second - *first < min * 1000) out.note = raised;
  return out;
}

Status WatchTools::readTarget(const Object& args, store::Watch& w) const {
  std::optional<std::string> tool = tools::stringArgument(args, "tool");
  if (!tool || tool->empty()) {
    return Status::error(R"(watch_add: "tool" must be the name of an MCP tool to poll)");
  }
  if (std::string refusal = watchRefusal(catalog_, *tool); !refusal.empty()) {
    return Status::error("watch_add: cannot watch " + *tool + ": " + refusal);
  }
  w.tool = resolvedName(catalog_, *tool);
  Result<std::string> arguments = readArguments(args);
  if (!arguments.isOk()) return arguments.status();
  w.arguments = arguments.value();
  return Status::ok();
}

// Validates the arguments and builds the watch to insert; errors are texts for the model.
Result<store::Watch> WatchTools::newWatch(const Object& args, const std::string& chat_id,
                                          std::string* note) const {
  store::Watch w;
  if (Status s = readTarget(args, w); !s.isOk()) return s;
  if (Status s = readPrompt(args, w); !s.isOk()) return s;
  if (Status s = readItems(args, w); !s.isOk()) return s;
  Result<Interval> when = interval(args);
  if (!when.isOk()) return when.status();
  w.every_seconds = when->every_seconds;
  w.schedule = when->schedule;
  *note = when->note;
  w.chat_id = chat_id;
  w.created_at = clock_();
  w.next_poll_at = w.created_at;  // the first poll, which only records, runs at once
  return w;
}

ToolResult WatchTools::add(const Object& args, const std::string& chat_id) {
  std::string note;
  Result<store::Watch> w = newWatch(args, chat_id, &note);
  if (!w.isOk()) return fail(w.status().message());
  Result<std::optional<int64_t>> id = repo_.addWithinLimit(w.value(), options_.max_watches);
  if (!id.isOk()) return fail(id.status().message());
  if (!id.value()) {
    return fail("watch_add: already " + std::to_string(options_.max_watches) +
                " watches, the most WATCH_MAX allows; remove one with watch_remove first");
  }
  if (on_added_) on_added_();
  return {true, "added watch " + std::to_string(*id.value()) + ": polls " + w->tool + " " +
                    describeInterval(w.value()) + note +
                    ". The first poll, now, only records the items there; a later poll with "
                    "new items starts a turn here with your prompt and only those items."};
}

std::string describeInterval(const store::Watch& w) {
  if (!w.schedule.empty()) return "on schedule \"" + w.schedule + "\"";
  return "every " + formatSeconds(w.every_seconds);
}

std::string WatchTools::stateOf(const store::Watch& w, const std::string& refusal) {
  if (!refusal.empty()) return "tool gone: " + refusal;
  if (w.failures > 0) {
    return "failing (" + std::to_string(w.failures) + " polls in a row): " + w.last_error;
  }
  return w.primed ? "ok" : "waiting for its first poll";
}

ToolResult WatchTools::list(const std::string& chat_id) {
  Result<std::vector<store::Watch>> watches = repo_.list(chat_id);
  if (!watches.isOk()) return fail(watches.status().message());
  Poco::JSON::Array rows;
  for (const store::Watch& w : watches.value()) {
    Object row(Poco::JSON_PRESERVE_KEY_ORDER);
    row.set("id", w.id);
    row.set("tool", w.tool);
    row.set("arguments", w.arguments);
    row.set("when", describeInterval(w));
    row.set("next_poll", w.next_poll_at ? cron::formatLocal(*w.next_poll_at, zone_.tz) : "none");
    row.set("state", stateOf(w, watchRefusal(catalog_, w.tool)));
    row.set("prompt", w.prompt);
    rows.add(row);
  }
  Object out(Poco::JSON_PRESERVE_KEY_ORDER);
  out.set("timezone", zone_.name);
  out.set("watches", rows);
  return {true, stringify(out)};
}

ToolResult WatchTools::remove(const Object& args, const std::string& chat_id) {
  std::optional<int64_t> id = tools::integerArgument(args, "id");
  if (!id) return fail(R"(watch_remove: "id" must be a watch id (an integer) from watch_list)");
  Result<std::optional<store::Watch>> w = repo_.get(*id);
  if (!w.isOk()) return fail(w.status().message());
  if (!w.value() || w.value()->chat_id != chat_id) {
    return fail("watch_remove: no watch " + std::to_string(*id) +
                " in this chat; watch_list shows the ids");
  }
  Result<bool> removed = repo_.remove(*id);
  if (!removed.isOk()) return fail(removed.status().message());
  return {true, "removed watch " + std::to_string(*id) + " (" + w.value()->tool + ")"};
}

}  // namespace gantry::watch
