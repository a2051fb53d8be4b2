#include "mcp/server.h"

#include <algorithm>

#include "gantry/text/duration.h"
#include "gantry/text/split.h"
#include "log/log.h"
#include "mcp/http_transport.h"
#include "mcp/sandboxing.h"
#include "mcp/stdio_transport.h"
#include "store/store.h"
#include "tools/naming.h"

namespace gantry::mcp {
namespace {

bool selected(const ServerSpec& spec, const std::string& tool) {
  auto matches = [&](const std::string& glob) { return globMatch(glob, tool); };
  if (!spec.tools.empty() && std::none_of(spec.tools.begin(), spec.tools.end(), matches)) {
    return false;
  }
  return std::none_of(spec.exclude.begin(), spec.exclude.end(), matches);
}

}  // namespace

const char* stateName(ServerState state) {
  switch (state) {
    case ServerState::kStarting: return "starting";
    case ServerState::kUp: return "up";
    case ServerState::kDown: return "down";
    case ServerState::kStopped: return "stopped";
  }
  return "down";
}

McpServer::McpServer(ServerSpec spec, McpOptions options)
    : spec_(std::move(spec)), options_(std::move(options)) {
  status_.name = spec_.name;
  status_.transport = spec_.isStdio() ? "stdio" : "http";
  status_.down_since_ms = store::nowMs();
}

McpServer::~McpServer() { stop(); }

void McpServer::start() {
  thread_ = std::thread([this] { supervise(); });
}

void McpServer::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    wake_.notify_all();
  }
  dropClient(false);  // fails whatever the supervisor is waiting for
  if (thread_.joinable()) thread_.join();
  dropClient(false);
  std::lock_guard lock(mutex_);
  leaveUpLocked();
  status_.state = ServerState::kStopped;
  published_ = makeToolList();
}

bool McpServer::waitFirstAttempt(std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(mutex_);
  return wake_.wait_until(lock, deadline, [&] { return attempted_; });
}

std::unique_ptr<Transport> McpServer::makeTransport() const {
  if (!spec_.isStdio()) {
    return std::make_unique<HttpTransport>(
        HttpOptions{spec_.name, spec_.url, spec_.headers, options_.message_cap});
  }
  StdioOptions stdio;
  stdio.server = spec_.name;
  stdio.command = spec_.command;
  stdio.args = spec_.args;
  stdio.env = minimalEnvironment();
  if (options_.sandbox.enabled) {
    stdio.sandbox = sandboxPlan(spec_, options_);
    stdio.env["HOME"] = stdio.sandbox->state_dir;
    stdio.env["TMPDIR"] = stdio.sandbox->state_dir + "/tmp";
  }
  for (const auto& [name, value] : spec_.env) stdio.env[name] = value;
  stdio.line_cap = options_.message_cap;
  return std::make_unique<StdioTransport>(std::move(stdio));
}

// A failure is an error the first time; the same failure again, on the restart schedule,
// is routine and logged at info (the owner is not told every 30 s).
void McpServer::supervise() {
  auto backoff = options_.backoff_initial;
  std::string last_failure;
  while (true) {
    auto status = connect();
    if (status.isOk()) {
      backoff = options_.backoff_initial;
      last_failure.clear();
      markAttempted();
      watchUntilDown();
    } else {
      markDown(status.message());
      dropClient(true);
      if (!stopping()) logFailure(status.message(), backoff, &last_failure);
      markAttempted();
    }
    if (!sleepFor(backoff)) return;
    backoff = std::min(backoff * 2, options_.backoff_max);
    std::lock_guard lock(mutex_);
    ++status_.restarts;
  }
}

void McpServer::logFailure(const std::string& error, std::chrono::milliseconds retry_in,
                           std::string* last_failure) {
  LogFields fields{
      {"server", spec_.name}, {"error", error}, {"retry_in_ms", std::to_string(retry_in.count())}};
  if (error == *last_failure) {
    log::info("mcp_server_still_failing", fields);
  } else {
    log::error("mcp_server_failed", fields);
  }
  *last_failure = error;
}

void McpServer::markAttempted() {
  std::lock_guard lock(mutex_);
  attempted_ = true;
  wake_.notify_all();
}

bool McpServer::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

bool McpServer::sleepFor(std::chrono::milliseconds delay) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_for(lock, delay, [&] { return stopping_; });
}

Status McpServer::connect() {
  auto client = std::make_shared<Client>(spec_.name, makeTransport(),
                                         Client::Callbacks{[this] {
                                                             std::lock_guard lock(mutex_);
                                                             refresh_ = true;
                                                             wake_.notify_all();
                                                           },
                                                           [this](const std::string&) {
                                                             std::lock_guard lock(mutex_);
                                                             closed_ = true;
                                                             wake_.notify_all();
                                                           }});
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return Status::cancelled("stopping");
    closed_ = false;
    refresh_ = false;
    status_.state = ServerState::kStarting;
    client_ = client;
  }
  auto status = client->start(options_.init_timeout);
  if (!status.isOk()) return Status::retry(spec_.name + ": " + status.message());
  status = refreshTools();
  if (!status.isOk()) return status;
  std::lock_guard lock(mutex_);
  status_.protocol_version = client->protocolVersion();
  log::info("mcp_server_up", {{"server", spec_.name},
                              {"transport", status_.transport},
                              {"protocol", status_.protocol_version},
                              {"tools_listed", std::to_string(status_.tools_listed)},
                              {"tools_published", std::to_string(status_.tools_published)},
                              {"est_tokens", std::to_string(status_.est_tokens)}});
  return Status::ok();
}

Status McpServer::refreshTools() {
  std::shared_ptr<Client> client;
  {
    std::lock_guard lock(mutex_);
    client = client_;
    refresh_ = false;
  }
  if (!client) return Status::retry(spec_.name + ": not connected");
  auto listed = client->listTools(options_.init_timeout);
  if (!listed.isOk()) return Status::retry(spec_.name + ": " + listed.status().message());
  publish(std::move(listed.value()));
  return Status::ok();
}

void McpServer::publish(std::vector<RemoteTool> remote) {
  std::vector<ToolSchema> schemas;
  std::map<std::string, std::string> by_published;
  std::vector<std::string> names;
  std::size_t tokens = 0;
  for (auto& tool : remote) {
    names.push_back(tool.name);
    if (!selected(spec_, tool.name)) continue;
    auto name = tools::publishedName(spec_.prefix(), tool.name);
    if (!by_published.emplace(name, tool.name).second) {
      log::warn("mcp_tool_name_clash", {{"server", spec_.name}, {"tool", tool.name}});
      continue;
    }
    tokens += tools::estimateTokens(name, tool.description, tool.input_schema_json);
    schemas.push_back({name, tool.description, tool.input_schema_json});
  }
  std::sort(schemas.begin(), schemas.end(),
            [](const ToolSchema& a, const ToolSchema& b) { return a.name < b.name; });
  std::lock_guard lock(mutex_);
  status_.tools_listed = remote.size();
  status_.tools_published = schemas.size();
  status_.est_tokens = tokens;
  published_ = makeToolList(std::move(schemas));
  // Tools are only published by a connected, initialised client: the server is up.
  status_.state = ServerState::kUp;
  status_.down_since_ms = 0;
  status_.was_up = true;
  status_.last_error.clear();
  remote_by_published_ = std::move(by_published);
  remote_names_ = std::move(names);
}

void McpServer::watchUntilDown() {
  while (true) {
    std::shared_ptr<Client> client;
    bool refresh = false;
    {
      std::unique_lock lock(mutex_);
      const bool woken = wake_.wait_for(lock, options_.health_interval,
                                        [&] { return stopping_ || closed_ || refresh_; });
      if (stopping_) return;
      if (closed_) break;
      refresh = woken;
      client = client_;
    }
    if (refresh) {
      auto status = refreshTools();
      if (!status.isOk()) log::warn("mcp_tools_refresh_failed", {{"error", status.message()}});
      continue;
    }
    // A call in flight has its own timeout; a server busy with it (one request at a time)
    // is not hung, so only an idle server is pinged.
    if (client->busy() || client->ping(options_.health_timeout).isOk()) continue;
    log::warn("mcp_server_hung", {{"server", spec_.name}});
    markDown("the server stopped answering ping");
    dropClient(true);
    return;
  }
  markDown("the server process exited");
  dropClient(false);
}

void McpServer::markDown(const std::string& error) {
  std::lock_guard lock(mutex_);
  if (status_.state == ServerState::kUp) {
    log::warn("mcp_server_down", {{"server", spec_.name}, {"reason", error}});
  }
  leaveUpLocked();
  status_.state = ServerState::kDown;
  status_.last_error = error;
  published_ = makeToolList();
  remote_by_published_.clear();
  remote_names_.clear();
}

void McpServer::leaveUpLocked() {
  if (status_.state == ServerState::kUp) status_.down_since_ms = store::nowMs();
}

void McpServer::dropClient(bool kill) {
  std::shared_ptr<Client> client;
  {
    std::lock_guard lock(mutex_);
    client.swap(client_);
  }
  if (!client) return;
  if (kill)
    client->kill();
  else
    client->close();
}

ToolList McpServer::tools() const {
  std::lock_guard lock(mutex_);
  return published_;
}

std::string McpServer::summary() const {
  constexpr std::size_t kMaxChars = 100;
  std::string line = spec_.description;
  if (line.empty()) {
    std::lock_guard lock(mutex_);
    if (!published_->empty()) line = published_->front().description;
  }
  line = line.substr(0, line.find('\n'));
  if (line.size() <= kMaxChars) return line;
  return line.substr(0, text::utf8Prefix(line, kMaxChars)) + "…";
}

std::string McpServer::outage() const {
  const ServerStatus now = status();
  if (now.state == ServerState::kUp) return {};
  const std::string since = log::isoUtc(now.down_since_ms);
  const std::string ago = text::formatDuration(store::nowMs() - now.down_since_ms) + " ago";
  // Before its first failure a server is still coming up; after it, it is down.
  const bool first_start = !now.was_up && now.last_error.empty();
  const std::string state = first_start
                                ? " is not up yet (starting since " + since + ", " + ago + ")"
                                : " is down since " + since + " (" + ago + ")";
  return "server " + spec_.name + state + "; its tools are unavailable for now";
}

std::string McpServer::remoteName(const std::string& published) const {
  std::lock_guard lock(mutex_);
  auto found = remote_by_published_.find(published);
  return found == remote_by_published_.end() ? std::string() : found->second;
}

tools::Policy McpServer::policy(const std::string& name) const {
  const auto remote = remoteName(name);
  return remote.empty() ? tools::Policy::kAllow : spec_.policyFor(remote);
}

std::string McpServer::fingerprint(const std::string& name) const {
  std::string schema = ToolSource::fingerprint(name);
  if (schema.empty()) return {};
  // Every field that decides what runs and where: a yes does not carry over to an entry
  // that now starts another command, talks to another URL or grants another policy.
  std::string entry = spec_.name + '\n' + spec_.command + '\n' + spec_.url + '\n' + spec_.prefix() +
                      '\n' + policyName(spec_.policy) + '\n';
  for (const auto& arg : spec_.args) entry.append("arg ").append(arg).append("\n");
  for (const auto& [key, value] : spec_.env) {
    entry.append("env ").append(key).append("=").append(value).append("\n");
  }
  for (const auto& [key, value] : spec_.headers) {
    entry.append("header ").append(key).append("=").append(value).append("\n");
  }
  for (const auto& [tool, policy] : spec_.tool_policy) {
    entry.append("policy ").append(tool).append("=").append(policyName(policy)).append("\n");
  }
  return entry + schema;
}

bool McpServer::hasRemoteTool(const std::string& tool) const {
  std::lock_guard lock(mutex_);
  return std::find(remote_names_.begin(), remote_names_.end(), tool) != remote_names_.end();
}

tools::ToolResult McpServer::call(const std::string& name, const std::string& arguments_json,
                                  const tools::CallContext& context) {
  const auto remote = remoteName(name);
  if (remote.empty() && status().state != ServerState::kUp) {
    return callRemote(name, arguments_json, context);  // explains that the server is down
  }
  if (remote.empty()) {
    return {false, "no tool " + name + " on MCP server " + spec_.name + " right now (" +
                       stateName(status().state) + ")"};
  }
  return callRemote(remote, arguments_json, context);
}

tools::ToolResult McpServer::callRemote(const std::string& tool, const std::string& arguments_json,
                                        const tools::CallContext& context) {
  std::shared_ptr<Client> client;
  std::string why;
  {
    std::lock_guard lock(mutex_);
    if (status_.state == ServerState::kUp) client = client_;
    why = status_.last_error;
  }
  if (!client) {
    return {false, "MCP server " + spec_.name + " is down" + (why.empty() ? "" : " (" + why + ")") +
                       " and is being restarted; try again shortly"};
  }
  return client->callTool(tool, arguments_json, context);
}

ServerStatus McpServer::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

}  // namespace gantry::mcp
