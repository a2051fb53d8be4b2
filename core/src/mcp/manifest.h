#pragma once
/// The MCP manifest (etc/mcp.toml.example): which servers this process runs and what they publish.

#include <map>
#include <string>
#include <vector>

#include "config/secret_ref.h"
#include "gantry/status.h"
#include "sandbox/server_sandbox.h"
#include "tools/tool_source.h"

namespace gantry::mcp {

/// Whether a tool may run without asking the operator (manifest `policy`, `tool_policy`).
using Policy = tools::Policy;

using tools::policyName;

/// One [[server]] entry. Exactly one of command (stdio) or url (Streamable HTTP) is set.
/// No value holds `secret://NAME`: loading resolves them in env, headers, args, auth_args
/// and url from the vault, and refuses them anywhere else.
struct ServerSpec {
  std::string name;
  std::string command;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::string url;
  std::map<std::string, std::string> headers;
  std::vector<std::string> tools;    ///< allowlist globs; empty = every tool
  std::vector<std::string> exclude;  ///< denylist globs
  std::string tools_prefix;
  std::string description;  ///< one line for the lazy tool listing (optional)
  std::string auth_command;
  std::vector<std::string> auth_args;
  Policy policy = Policy::kAllow;
  std::map<std::string, Policy> tool_policy;  ///< by the server's own (unprefixed) tool name
  std::string download_url;
  std::string download_tag;
  sandbox::Grants sandbox;  ///< what the sandboxed stdio server may reach beyond the system

  bool isStdio() const { return !command.empty(); }
  /// The published-name prefix: tools_prefix, else name.
  const std::string& prefix() const { return tools_prefix.empty() ? name : tools_prefix; }
  /// The policy for one of this server's tools (tool_policy first, then policy).
  Policy policyFor(const std::string& tool) const;
};

/// The parsed manifest file.
struct Manifest {
  std::string path;
  bool found = false;  ///< false when the file does not exist (no servers)
  std::vector<ServerSpec> servers;

  /// The server called name, or null.
  const ServerSpec* find(const std::string& name) const;
};

/// Reads and validates the manifest. A missing file is not an error: the result has
/// found=false and no servers (the caller logs it). Every other problem (syntax, unknown
/// key, duplicate or bad name, both or neither of command/url, bad glob, bad policy) is an
/// error naming the file, the line and the key. Thread-safe.
Result<Manifest> loadManifest(const std::string& path,
                              const config::SecretLookup& secrets = nullptr);

/// Refuses a Streamable HTTP server whose headers (its credentials) would travel in clear: a
/// plain http:// url to a host that is not loopback. The error names the server and
/// ALLOW_INSECURE_HTTP.
Status checkPlainHttp(const Manifest& manifest);

/// True when pattern is a usable tool-name glob (`*`, `?`, `[...]` with closed brackets).
bool validGlob(const std::string& pattern);
/// True when name matches glob (fnmatch semantics, no special treatment of '/').
bool globMatch(const std::string& glob, const std::string& name);

}  // namespace gantry::mcp
