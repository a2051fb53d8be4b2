#include "memory/memory_tools.h"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <charconv>
#include <optional>

#include "memory/ranking.h"
#include "tools/arguments.h"

namespace gantry::memory {
namespace {

using tools::ToolResult;

// Fixed text, so the published schemas are byte-identical from call to call.
constexpr const char* kStoreSchema =
    R"j({"type":"object","properties":{)j"
    R"j("kind":{"type":"string","enum":["fact","preference","person","episode","insight"],)j"
    R"j("description":"fact: a durable fact; preference: how the user likes things; )j"
    R"j(person: someone in the user's life; episode: something that happened (expires )j"
    R"j(after a while); insight: a conclusion drawn from several things"},)j"
    R"j("subject":{"type":"string","description":"Who or what it is about, in a few words"},)j"
    R"j("content":{"type":"string","description":"The memory itself, one short sentence"}},)j"
    R"j("required":["kind","subject","content"]})j";
constexpr const char* kRecallSchema =
    R"j({"type":"object","properties":{)j"
    R"j("query":{"type":"string","description":"Words to look for in stored memories"}},)j"
    R"j("required":["query"]})j";
constexpr const char* kForgetSchema =
    R"j({"type":"object","properties":{)j"
    R"j("id":{"type":"integer","description":"The id of the memory to forget (from )j"
    R"j(memory_recall)"},"query":{"type":"string","description":"Instead of id: forget )j"
    R"j(the memories that contain all of these words"}}})j";

ToolResult fail(std::string text) { return {false, std::move(text)}; }

bool blank(const std::string& text) {
  return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

std::string listRows(const std::vector<store::MemoryRow>& rows) {
  std::string text;
  for (const auto& row : rows) text += "- #" + std::to_string(row.id) + " " + renderRow(row) + "\n";
  return text;
}

}  // namespace

int64_t expiryFor(std::string_view kind, int64_t now_ms, const MemoryToolOptions& options) {
  if (kind != "episode") return 0;
  return now_ms +
         std::chrono::duration_cast<std::chrono::milliseconds>(options.episode_ttl).count();
}

MemoryTools::MemoryTools(store::MemoryRepo& repo, MemoryToolOptions options)
    : repo_(repo), options_(options) {}

ToolList MemoryTools::tools() const {
  static const ToolList kTools = makeToolList(memoryToolSchemas());
  return kTools;
}

std::vector<ToolSchema> memoryToolSchemas() {
  return {
      {"memory_forget", "Forget stored memories, by id or by words they contain.", kForgetSchema},
      {"memory_recall",
       "Search long-term memory about the user; returns matching memories with ids.",
       kRecallSchema},
      {"memory_store",
       "Store one thing worth remembering about the user across conversations. Only when the "
       "user shares something durable or asks you to remember.",
       kStoreSchema},
  };
}

ToolResult MemoryTools::call(const std::string& name, const std::string& arguments_json,
                             const tools::CallContext& /*context*/) {
  if (name == "memory_store") return store(arguments_json);
  if (name == "memory_recall") return recall(arguments_json);
  if (name == "memory_forget") return forget(arguments_json);
  return fail("unknown memory tool '" + name +
              "' (known: memory_store, memory_recall, memory_forget)");
}

ToolResult MemoryTools::store(const std::string& arguments_json) {
  auto args = tools::parseArguments(arguments_json);
  if (!args.isOk()) return fail("memory_store: " + args.status().message());
  auto kind = tools::stringArgument(*args.value(), "kind");
  auto subject = tools::stringArgument(*args.value(), "subject");
  auto content = tools::stringArgument(*args.value(), "content");
  if (!kind || !store::isMemoryKind(*kind)) {
    return fail("memory_store: kind must be one of fact, preference, person, episode, insight");
  }
  if (!subject || blank(*subject) || !content || blank(*content)) {
    return fail("memory_store: subject and content must be non-empty strings");
  }
  if (subject->size() > options_.max_subject_chars ||
      content->size() > options_.max_content_chars) {
    return fail("memory_store: too long (subject at most " +
                std::to_string(options_.max_subject_chars) + " chars, content at most " +
                std::to_string(options_.max_content_chars) + ")");
  }
  store::NewMemory row{*kind,  *subject, *content,
                       "chat", 1.0,      expiryFor(*kind, store::nowMs(), options_)};
  auto id = repo_.insert(row);
  if (!id.isOk()) return fail("memory_store: " + id.status().message());
  return {true, "stored #" + std::to_string(id.value()) + " (" + *kind + ") " + *subject};
}

ToolResult MemoryTools::recall(const std::string& arguments_json) {
  auto args = tools::parseArguments(arguments_json);
  if (!args.isOk()) return fail("memory_recall: " + args.status().message());
  auto query = tools::stringArgument(*args.value(), "query");
  if (!query || blank(*query)) return fail("memory_recall: query must be a non-empty string");
  int64_t now_ms = store::nowMs();
  auto rows =
      repo_.bestActive(*query, options_.recall_limit * 3, options_.recall_limit, now_ms,
                       [now_ms](const store::MemoryRow& row) { return score(row, now_ms); });
  if (!rows.isOk()) return fail("memory_recall: " + rows.status().message());
  if (rows.value().empty()) return {true, "no memories match"};
  return {true, listRows(rows.value())};
}

ToolResult MemoryTools::forget(const std::string& arguments_json) {
  auto args = tools::parseArguments(arguments_json);
  if (!args.isOk()) return fail("memory_forget: " + args.status().message());
  auto id = tools::integerArgument(*args.value(), "id");
  auto query = tools::stringArgument(*args.value(), "query");
  if (!id && (!query || blank(*query))) {
    return fail("memory_forget: give an integer id or a non-empty query");
  }
  auto removed = id ? repo_.forgetById(*id)
                    : repo_.forgetByQuery(*query, options_.forget_limit, store::nowMs());
  if (!removed.isOk()) return fail("memory_forget: " + removed.status().message());
  if (removed.value().empty()) {
    return fail(id ? "memory_forget: no memory #" + std::to_string(*id)
                   : "memory_forget: no memory contains all of those words");
  }
  return {true,
          "forgot " + std::to_string(removed.value().size()) + ":\n" + listRows(removed.value())};
}

}  // namespace gantry::memory
