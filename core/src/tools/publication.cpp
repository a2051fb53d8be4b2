#include "tools/publication.h"

#include <algorithm>
#include <sstream>

#include "log/log.h"
#include "store/kv_repo.h"
#include "tools/naming.h"

namespace gantry::tools {
namespace {

constexpr const char* kNamespace = "tools_enabled";

void sortByName(std::vector<ToolSchema>& schemas) {
  std::stable_sort(schemas.begin(), schemas.end(),
                   [](const ToolSchema& a, const ToolSchema& b) { return a.name < b.name; });
}

std::size_t schemaTokens(const std::vector<ToolSchema>& schemas) {
  std::size_t tokens = 0;
  for (const auto& s : schemas) tokens += estimateTokens(s.name, s.description, s.parameters_json);
  return tokens;
}

}  // namespace

PublishMode defaultPublishMode(std::size_t mcp_est_tokens, std::size_t eager_max_tokens) {
  return mcp_est_tokens > eager_max_tokens ? PublishMode::kLazy : PublishMode::kEager;
}

Publication::Publication(Catalog& catalog, store::Store& store, PublishOptions options)
    : catalog_(catalog), store_(store), options_(std::move(options)) {}

int64_t Publication::now() const { return options_.clock ? options_.clock() : store::nowMs(); }

std::vector<Publication::Held> Publication::load(const std::string& chat_id) const {
  std::vector<Held> held;
  auto value = store::KvRepo(store_).get(kNamespace, chat_id);
  if (!value) return held;
  std::istringstream lines(*value);
  Held h;
  while (lines >> h.server >> h.until_ms) held.push_back(h);
  return held;
}

void Publication::save(const std::string& chat_id, const std::vector<Held>& held) const {
  std::string value;
  for (const auto& h : held) value += h.server + " " + std::to_string(h.until_ms) + "\n";
  if (Status s = store::KvRepo(store_).set(kNamespace, chat_id, value); !s.isOk()) {
    log::warn("tools_enabled_not_saved", {{"chat", chat_id}, {"error", s.message()}});
  }
}

void Publication::beginTurn(const std::string& chat_id) {
  if (options_.mode == PublishMode::kEager) return;
  std::lock_guard lock(mutex_);
  auto held = load(chat_id);
  const auto before = held.size();
  const int64_t now_ms = now();
  held.erase(
      std::remove_if(held.begin(), held.end(), [&](const Held& h) { return h.until_ms <= now_ms; }),
      held.end());
  if (held.size() != before) save(chat_id, held);
}

std::vector<ToolSchema> Publication::schemas(const std::string& chat_id) const {
  if (options_.mode == PublishMode::kEager) return catalog_.schemas();
  std::vector<ToolSchema> out;
  for (const auto* source : catalog_.sources()) {
    if (!source->server().empty()) continue;
    auto tools = source->tools();
    out.insert(out.end(), tools.begin(), tools.end());
  }
  sortByName(out);
  std::vector<Held> held;
  {
    std::lock_guard lock(mutex_);
    held = load(chat_id);
  }
  for (const auto& h : held) {
    std::vector<ToolSchema> block;
    for (const auto* source : catalog_.sources()) {
      if (source->server() != h.server) continue;
      auto tools = source->tools();
      block.insert(block.end(), tools.begin(), tools.end());
    }
    sortByName(block);
    out.insert(out.end(), block.begin(), block.end());
  }
  return out;
}

bool Publication::renew(const std::string& chat_id, const std::string& server) {
  std::lock_guard lock(mutex_);
  auto held = load(chat_id);
  const int64_t until = now() + options_.hold.count();
  auto found =
      std::find_if(held.begin(), held.end(), [&](const Held& h) { return h.server == server; });
  const bool added = found == held.end();
  // A renewal keeps the server's place, so the published order stays as it was.
  if (added) {
    held.push_back({server, until});
  } else {
    found->until_ms = until;
  }
  save(chat_id, held);
  return added;
}

bool Publication::enable(const std::string& chat_id, const std::string& server) {
  const auto known = servers();
  if (std::none_of(known.begin(), known.end(),
                   [&](const ServerListing& s) { return s.name == server; })) {
    return false;
  }
  if (renew(chat_id, server))
    log::info("tool_server_enabled", {{"chat", chat_id}, {"server", server}});
  return true;
}

void Publication::noteCall(const std::string& chat_id, const ToolSource& source) {
  const std::string server = source.server();
  if (options_.mode == PublishMode::kEager || server.empty()) return;
  if (renew(chat_id, server)) {
    log::info("tool_name_repaired",
              {{"chat", chat_id}, {"server", server}, {"repair", "server_enabled_by_call"}});
  }
}

std::vector<ServerListing> Publication::servers() const {
  std::vector<ServerListing> out;
  for (const auto* source : catalog_.sources()) {
    if (source->server().empty()) continue;
    auto tools = source->tools();
    out.push_back({source->server(), tools.size(), schemaTokens(tools), source->summary()});
  }
  return out;
}

std::string Publication::listingBlock() const {
  if (options_.mode == PublishMode::kEager) return {};
  std::string block =
      "Tool servers: call mcp_enable with a server's name to get its tools (from your next "
      "step on).";
  for (const auto& s : servers()) {
    block += "\n- " + s.name + ": " + std::to_string(s.tools) + " tools, ~" +
             std::to_string(s.est_tokens) + " est. tokens";
    if (!s.summary.empty()) block += " — " + s.summary;
  }
  return block;
}

}  // namespace gantry::tools
