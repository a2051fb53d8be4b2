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

void Publication::noteWithheld(const std::string& server, std::size_t tokens) const {
  std::lock_guard lock(withheld_mutex_);
  if (!withheld_.insert(server).second) return;
  log::warn("tool_server_withheld", {{"server", server},
                                     {"est_tokens", std::to_string(tokens)},
                                     {"max_tokens", std::to_string(options_.max_tokens)},
                                     {"note", "over TOOL_SCHEMA_MAX_TOKENS; not published"}});
}

void Publication::admit(const ToolSource& source, const std::vector<ToolSchema>& tools,
                        std::vector<ToolSchema>& out, std::size_t* tokens) const {
  const std::size_t cost = schemaTokens(tools);
  if (options_.max_tokens > 0 && *tokens + cost > options_.max_tokens) {
    return noteWithheld(source.server(), cost);
  }
  *tokens += cost;
  out.insert(out.end(), tools.begin(), tools.end());
  if (tools.empty() || options_.mode != PublishMode::kEager) return;
  std::lock_guard lock(withheld_mutex_);
  if (std::find(admitted_.begin(), admitted_.end(), &source) == admitted_.end()) {
    admitted_.push_back(&source);
  }
}

std::vector<const ToolSource*> Publication::eagerOrder(std::vector<const ToolSource*> order) const {
  for (const auto* source : catalog_.sources()) {
    if (source->server().empty()) continue;
    if (std::find(order.begin(), order.end(), source) == order.end()) order.push_back(source);
  }
  return order;
}

Publication::Inputs Publication::inputs(const std::string& chat_id) const {
  Inputs in;
  for (const auto* source : catalog_.sources()) in.lists.push_back(source->tools());
  if (options_.mode == PublishMode::kEager) {
    std::lock_guard lock(withheld_mutex_);
    in.admitted = admitted_;
    return in;
  }
  std::lock_guard lock(mutex_);
  for (const auto& h : load(chat_id)) in.held.push_back(h.server);
  return in;
}

std::vector<ToolSchema> Publication::compose(const Inputs& in) const {
  const auto& sources = catalog_.sources();
  auto listOf = [&](const ToolSource* source) -> const std::vector<ToolSchema>& {
    auto at = std::find(sources.begin(), sources.end(), source) - sources.begin();
    return *in.lists[static_cast<std::size_t>(at)];
  };
  std::vector<ToolSchema> out;
  std::size_t tokens = 0;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (!sources[i]->server().empty()) continue;
    tokens += schemaTokens(*in.lists[i]);
    out.insert(out.end(), in.lists[i]->begin(), in.lists[i]->end());
  }
  if (options_.mode == PublishMode::kEager) {
    for (const auto* source : eagerOrder(in.admitted)) admit(*source, listOf(source), out, &tokens);
    sortByName(out);  // as Catalog::schemas() orders everything
    return out;
  }
  sortByName(out);
  for (const auto& server : in.held) {
    std::vector<ToolSchema> block;
    for (const auto* source : sources) {
      if (source->server() == server) admit(*source, listOf(source), block, &tokens);
    }
    sortByName(block);
    out.insert(out.end(), block.begin(), block.end());
  }
  return out;
}

// Composed again only when a source's list, the chat's enabled servers or the eager order
// changed: every model call asks, and composing copied and sorted every schema.
ToolList Publication::schemas(const std::string& chat_id) const {
  Inputs in = inputs(chat_id);
  {
    std::lock_guard lock(cache_mutex_);
    if (cached_ && cached_inputs_ == in) return cached_;
  }
  ToolList composed = makeToolList(compose(in));
  if (options_.mode == PublishMode::kEager) {
    // Composing admits the servers it published; with them first it composes the same.
    std::lock_guard lock(withheld_mutex_);
    in.admitted = admitted_;
  }
  std::lock_guard lock(cache_mutex_);
  cached_inputs_ = std::move(in);
  cached_ = composed;
  return composed;
}

Status Publication::checkAtStart() const {
  if (options_.max_tokens == 0) return Status::ok();
  const std::size_t tokens = options_.mode == PublishMode::kEager
                                 ? schemaTokens(*catalog_.schemas())
                                 : publishedTokens({});
  if (tokens <= options_.max_tokens) return Status::ok();
  return Status::error(
      "published tool schemas are estimated at " + std::to_string(tokens) +
      " tokens, over TOOL_SCHEMA_MAX_TOKENS=" + std::to_string(options_.max_tokens) +
      " (narrow them with tools/exclude in the manifest, or TOOL_PUBLISH=lazy)");
}

std::size_t Publication::publishedTokens(const std::string& chat_id) const {
  return schemaTokens(*schemas(chat_id));
}

bool Publication::published(const std::string& chat_id, const std::string& server) const {
  const ToolList schemas_now = schemas(chat_id);
  for (const auto* source : catalog_.sources()) {
    if (source->server() != server) continue;
    const ToolList tools = source->tools();
    for (const auto& tool : *tools) {
      if (std::none_of(schemas_now->begin(), schemas_now->end(),
                       [&](const ToolSchema& s) { return s.name == tool.name; })) {
        return false;
      }
    }
  }
  return true;
}

std::optional<std::string> Publication::overCap(const std::string& chat_id,
                                                const std::string& server) const {
  if (options_.max_tokens == 0 || published(chat_id, server)) return std::nullopt;
  std::size_t cost = 0;
  for (const auto& s : servers()) {
    if (s.name == server) cost = s.est_tokens;
  }
  const std::size_t now_tokens = publishedTokens(chat_id);
  if (now_tokens + cost <= options_.max_tokens) return std::nullopt;
  return "error: " + server + "'s tools (~" + std::to_string(cost) +
         " est. tokens) would take the published tools to ~" + std::to_string(now_tokens + cost) +
         ", over the owner's TOOL_SCHEMA_MAX_TOKENS=" + std::to_string(options_.max_tokens) +
         "; it was not enabled. Go on without it, or tell the user.";
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

bool Publication::noteCall(const std::string& chat_id, const ToolSource& source) {
  const std::string server = source.server();
  if (options_.mode == PublishMode::kEager || server.empty()) return false;
  if (overCap(chat_id, server)) {
    log::warn("tool_server_not_enabled",
              {{"chat", chat_id}, {"server", server}, {"note", "over TOOL_SCHEMA_MAX_TOKENS"}});
    return false;  // the call runs; the server stays unpublished
  }
  if (!renew(chat_id, server)) return false;
  log::info("tool_name_repaired",
            {{"chat", chat_id}, {"server", server}, {"repair", "server_enabled_by_call"}});
  return true;
}

std::vector<ServerListing> Publication::servers() const {
  std::vector<ServerListing> out;
  for (const auto* source : catalog_.sources()) {
    if (source->server().empty()) continue;
    const ToolList tools = source->tools();
    out.push_back({source->server(), tools->size(), schemaTokens(*tools), source->summary()});
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
