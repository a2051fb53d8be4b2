#include "mcp/host.h"

#include <iostream>
#include <sstream>

#include "log/log.h"
#include "mcp/child_process.h"
#include "mcp/sandboxing.h"
#include "tools/naming.h"

namespace gantry::mcp {
namespace {

std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

/// The sandbox `gantry auth` runs a stdio server's login in; sets HOME and TMPDIR in env.
Result<sandbox::Ruleset> sandboxFor(const Manifest& one, const std::string& command,
                                    McpOptions* options, Environment* env) {
  if (Status s = prepareSandbox(one, options); !s.isOk()) return s;
  auto plan = sandboxPlan(one.servers.front(), *options);
  plan.terminal = true;
  (*env)["HOME"] = plan.state_dir;
  (*env)["TMPDIR"] = plan.state_dir + "/tmp";
  auto program = findProgram(command);
  if (!program.isOk()) return program.status();
  return sandbox::buildRuleset(plan, program.value());
}

}  // namespace

Result<std::unique_ptr<McpHost>> McpHost::start(const Manifest& manifest, McpOptions options) {
  if (Status s = prepareSandbox(manifest, &options); !s.isOk()) return s;
  std::unique_ptr<McpHost> host(new McpHost);
  for (const auto& spec : manifest.servers) {
    host->servers_.push_back(std::make_unique<McpServer>(spec, options));
    host->servers_.back()->start();
  }
  const auto deadline = std::chrono::steady_clock::now() + options.boot_wait;
  std::size_t listed = 0, published = 0;
  for (const auto& server : host->servers_) {
    if (!server->waitFirstAttempt(deadline)) {
      log::warn("mcp_server_slow", {{"server", server->spec().name},
                                    {"note", "not up within the boot wait; joins when ready"}});
    }
    const auto status = server->status();
    listed += status.tools_listed;
    published += status.tools_published;
  }
  const auto tokens = host->estimatedTokens();
  log::info("mcp_tools", {{"servers", std::to_string(host->servers_.size())},
                          {"tools_listed", std::to_string(listed)},
                          {"tools_published", std::to_string(published)},
                          {"est_tokens", std::to_string(tokens)}});
  return host;
}

McpHost::~McpHost() { shutdown(); }

void McpHost::shutdown() {
  for (auto& server : servers_) server->stop();
}

std::vector<tools::ToolSource*> McpHost::sources() {
  std::vector<tools::ToolSource*> out;
  for (auto& server : servers_) out.push_back(server.get());
  return out;
}

McpServer* McpHost::server(const std::string& name) {
  for (auto& server : servers_) {
    if (server->spec().name == name) return server.get();
  }
  return nullptr;
}

std::size_t McpHost::estimatedTokens() const {
  std::size_t tokens = 0;
  for (const auto& server : servers_) tokens += server->status().est_tokens;
  return tokens;
}

std::string McpHost::describeTools() const {
  std::ostringstream out;
  for (const auto& server : servers_) {
    const auto status = server->status();
    out << status.name << " (" << status.transport << ", " << stateName(status.state) << ", "
        << status.tools_published << " of " << status.tools_listed << " tools, ~"
        << status.est_tokens << " est. tokens)\n";
    if (!status.last_error.empty()) out << "  error: " << status.last_error << "\n";
    const ToolList tools = server->tools();  // held while iterated
    for (const auto& tool : *tools) {
      out << "  " << tool.name << "\t~"
          << tools::estimateTokens(tool.name, tool.description, tool.parameters_json)
          << " est. tokens\t" << firstLine(tool.description) << "\n";
    }
  }
  out << "total: ~" << estimatedTokens() << " est. tokens (chars/4)\n";
  return out.str();
}

int authCommand(const Manifest& manifest, const std::string& name, McpOptions options) {
  const auto* spec = manifest.find(name);
  if (spec == nullptr) {
    std::cerr << "gantry auth: no server \"" << name << "\" in " << manifest.path << "\n";
    return 1;
  }
  // auth_args alone run the server's own command with them ("garmin login").
  const std::string& program =
      spec->auth_command.empty() && !spec->auth_args.empty() ? spec->command : spec->auth_command;
  if (program.empty()) {
    std::cerr << "gantry auth: server \"" << name << "\" has no auth_command or auth_args"
              << (spec->command.empty() ? " with a command" : "") << " in " << manifest.path
              << "\n";
    return 1;
  }
  // The login runs where the server runs: in its sandbox, with its state directory as HOME,
  // so what it stores there is what the server finds.
  auto env = minimalEnvironment();
  std::optional<sandbox::Ruleset> ruleset;
  if (options.sandbox.enabled && spec->isStdio()) {
    Manifest one{manifest.path, manifest.found, {*spec}};
    auto built = sandboxFor(one, program, &options, &env);
    if (!built.isOk()) {
      std::cerr << "gantry auth " << name << ": " << built.status().message() << "\n";
      return 1;
    }
    ruleset = std::move(built.value());
  }
  for (const auto& [key, value] : spec->env) env[key] = value;
  auto child =
      ChildProcess::spawn(program, spec->auth_args, env, {false, ruleset ? &*ruleset : nullptr});
  if (!child.isOk()) {
    std::cerr << "gantry auth " << name << ": " << child.status().message() << "\n";
    return 1;
  }
  return child.value()->wait();
}

}  // namespace gantry::mcp
