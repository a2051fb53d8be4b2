#include "mcp/manifest.h"

#include <fnmatch.h>
#include <toml++/toml.h>

#include <filesystem>
#include <regex>
#include <set>

#include "config/example_files.h"
#include "config/plain_http.h"
#include "config/secret_ref.h"

namespace gantry::mcp {
namespace {

/// Collects the first validation error with its position.
class Checker {
 public:
  explicit Checker(std::string path) : path_(std::move(path)) {}

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

  void fail(const toml::source_region& where, const std::string& key, const std::string& what) {
    failAt(where, key + ": " + what);
  }
  /// A message that already names its key.
  void failAt(const toml::source_region& where, const std::string& message) {
    if (failed()) return;
    error_ = path_ + ":" + std::to_string(where.begin.line) + ": " + message;
  }

 private:
  std::string path_;
  std::string error_;
};

using Reader = void (*)(const toml::node&, const std::string&, ServerSpec&, Checker&);

bool readString(const toml::node& node, const std::string& key, std::string* out, Checker& check) {
  const auto* value = node.as_string();
  if (value == nullptr) {
    check.fail(node.source(), key, "must be a string");
    return false;
  }
  *out = value->get();
  return true;
}

void readStringList(const toml::node& node, const std::string& key, std::vector<std::string>* out,
                    Checker& check) {
  const auto* array = node.as_array();
  if (array == nullptr) return check.fail(node.source(), key, "must be an array of strings");
  for (const auto& item : *array) {
    std::string text;
    if (!readString(item, key, &text, check)) return;
    out->push_back(text);
  }
}

void readStringMap(const toml::node& node, const std::string& key,
                   std::map<std::string, std::string>* out, Checker& check) {
  const auto* table = node.as_table();
  if (table == nullptr) return check.fail(node.source(), key, "must be a table of strings");
  for (const auto& [name, value] : *table) {
    std::string text;
    if (!readString(value, key + "." + std::string(name.str()), &text, check)) return;
    (*out)[std::string(name.str())] = text;
  }
}

bool parsePolicy(const std::string& text, Policy* out) {
  if (text == "allow")
    *out = Policy::kAllow;
  else if (text == "ask")
    *out = Policy::kAsk;
  else if (text == "deny")
    *out = Policy::kDeny;
  else
    return false;
  return true;
}

void readPolicy(const toml::node& node, const std::string& key, Policy* out, Checker& check) {
  std::string text;
  if (!readString(node, key, &text, check)) return;
  if (!parsePolicy(text, out)) {
    check.fail(node.source(), key, "\"" + text + "\" is not allow, ask or deny");
  }
}

void readGlobs(const toml::node& node, const std::string& key, std::vector<std::string>* out,
               Checker& check) {
  readStringList(node, key, out, check);
  for (const auto& glob : *out) {
    if (!validGlob(glob)) check.fail(node.source(), key, "bad glob \"" + glob + "\"");
  }
}

void readToolPolicy(const toml::node& node, const std::string& key, ServerSpec& spec,
                    Checker& check) {
  const auto* table = node.as_table();
  if (table == nullptr) return check.fail(node.source(), key, "must be a table of policies");
  for (const auto& [tool, value] : *table) {
    Policy policy = Policy::kAllow;
    readPolicy(value, key + "." + std::string(tool.str()), &policy, check);
    spec.tool_policy[std::string(tool.str())] = policy;
  }
}

// `sandbox = { read = [...], write = [...] }`: absolute paths; any other key is a typo.
void readSandbox(const toml::node& node, const std::string& key, ServerSpec& spec, Checker& check) {
  const auto* table = node.as_table();
  if (table == nullptr) return check.fail(node.source(), key, "must be a table (read, write)");
  for (const auto& [name, value] : *table) {
    const std::string field = key + "." + std::string(name.str());
    std::vector<std::string>* out = name.str() == "read"    ? &spec.sandbox.read
                                    : name.str() == "write" ? &spec.sandbox.write
                                                            : nullptr;
    if (out == nullptr) return check.fail(value.source(), field, "unknown key (read or write)");
    readStringList(value, field, out, check);
    for (const auto& path : *out) {
      if (path.empty() || path[0] != '/') {
        check.fail(value.source(), field, "\"" + path + "\" is not an absolute path");
      }
    }
  }
}

const std::map<std::string, Reader>& readers() {
  static const std::map<std::string, Reader> table = {
      {"name", [](auto& n, auto& k, auto& s, auto& c) { readString(n, k, &s.name, c); }},
      {"command", [](auto& n, auto& k, auto& s, auto& c) { readString(n, k, &s.command, c); }},
      {"args", [](auto& n, auto& k, auto& s, auto& c) { readStringList(n, k, &s.args, c); }},
      {"env", [](auto& n, auto& k, auto& s, auto& c) { readStringMap(n, k, &s.env, c); }},
      {"url", [](auto& n, auto& k, auto& s, auto& c) { readString(n, k, &s.url, c); }},
      {"headers", [](auto& n, auto& k, auto& s, auto& c) { readStringMap(n, k, &s.headers, c); }},
      {"tools", [](auto& n, auto& k, auto& s, auto& c) { readGlobs(n, k, &s.tools, c); }},
      {"exclude", [](auto& n, auto& k, auto& s, auto& c) { readGlobs(n, k, &s.exclude, c); }},
      {"description",
       [](auto& n, auto& k, auto& s, auto& c) { readString(n, k, &s.description, c); }},
      {"tools_prefix",
       [](auto& n, auto& k, auto& s, auto& c) { readString(n, k, &s.tools_prefix, c); }},
      {"auth_command",
       [](auto& n, auto& k, auto& s, auto& c) { readString(n, k, &s.auth_command, c); }},
      {"auth_args",
       [](auto& n, auto& k, auto& s, auto& c) { readStringList(n, k, &s.auth_args, c); }},
      {"policy", [](auto& n, auto& k, auto& s, auto& c) { readPolicy(n, k, &s.policy, c); }},
      {"tool_policy", readToolPolicy},
      {"sandbox", readSandbox},
      {"download_url",
       [](auto& n, auto& k, auto& s, auto& c) { readString(n, k, &s.download_url, c); }},
      {"download_tag",
       [](auto& n, auto& k, auto& s, auto& c) { readString(n, k, &s.download_tag, c); }},
  };
  return table;
}

bool validName(const std::string& name) {
  static const std::regex pattern("[a-z0-9_-]+");
  return std::regex_match(name, pattern);
}

bool validPrefix(const std::string& prefix) {
  static const std::regex pattern("[A-Za-z0-9_-]+");
  return std::regex_match(prefix, pattern);
}

void checkServer(const toml::table& table, const ServerSpec& spec, Checker& check) {
  auto where = [&](const char* key) {
    const auto* node = table.get(key);
    return node != nullptr ? node->source() : table.source();
  };
  if (!validName(spec.name)) {
    check.fail(where("name"), "name", "\"" + spec.name + "\" must match [a-z0-9_-]+");
  }
  if (spec.command.empty() == spec.url.empty()) {
    check.fail(where(spec.command.empty() ? "name" : "url"),
               spec.command.empty() ? "command" : "url",
               "server \"" + spec.name + "\" needs exactly one of command or url");
  }
  if (!spec.url.empty() && table.contains("sandbox")) {
    check.fail(where("sandbox"), "sandbox", "applies to stdio servers only (this one has a url)");
  }
  if (table.contains("tools_prefix") && !validPrefix(spec.tools_prefix)) {
    check.fail(where("tools_prefix"), "tools_prefix", "must match [A-Za-z0-9_-]+");
  }
  if (!spec.url.empty() && spec.url.rfind("http://", 0) != 0 &&
      spec.url.rfind("https://", 0) != 0) {
    check.fail(where("url"), "url", "must start with http:// or https://");
  }
}

// A secret:// reference left in a server table (a key that takes none, or one that could
// not be resolved) fails the manifest: it must never reach a child or a request as is.
void refuseSecretRefs(const toml::node& node, const std::string& key, Checker& check) {
  if (const auto* text = node.as_string()) {
    if (config::holdsSecretRef(text->get())) {
      check.fail(node.source(), key,
                 "holds a secret:// reference; they are resolved only in env, headers, args, "
                 "auth_args and url");
    }
  } else if (const auto* array = node.as_array()) {
    for (const auto& item : *array) refuseSecretRefs(item, key, check);
  } else if (const auto* table = node.as_table()) {
    for (const auto& [name, value] : *table) {
      refuseSecretRefs(value, key + "." + std::string(name.str()), check);
    }
  }
}

void resolveRefs(toml::node& node, const std::string& key, const config::SecretLookup& secrets,
                 Checker& check) {
  if (auto* text = node.as_string()) {
    if (!config::holdsSecretRef(text->get())) return;
    auto resolved = config::resolveSecretRefs(key, text->get(), secrets);
    if (!resolved.isOk()) return check.failAt(node.source(), resolved.status().message());
    *text = resolved.value();
  } else if (auto* array = node.as_array()) {
    for (auto& item : *array) resolveRefs(item, key, secrets, check);
  } else if (auto* table = node.as_table()) {
    for (auto& [name, value] : *table) {
      resolveRefs(value, key + "." + std::string(name.str()), secrets, check);
    }
  }
}

// env, headers, args, auth_args and url may hold secret:// references: they are resolved in
// place before the servers are read, so no reference reaches a child or a request as is.
void resolveServers(toml::table& root, const config::SecretLookup& secrets, Checker& check) {
  auto* servers = root["server"].as_array();
  if (servers == nullptr) return;
  for (auto& server : *servers) {
    auto* table = server.as_table();
    if (table == nullptr) continue;
    for (const char* key : {"env", "headers", "args", "auth_args", "url"}) {
      if (auto* node = table->get(key)) resolveRefs(*node, key, secrets, check);
    }
  }
}

ServerSpec readServer(const toml::table& table, Checker& check) {
  ServerSpec spec;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    auto reader = readers().find(name);
    if (reader == readers().end()) {
      check.fail(
          key.source(), name,
          "unknown key (every key is shown in " + config::exampleFile("mcp.toml.example") + ")");
      continue;
    }
    reader->second(node, name, spec, check);
    refuseSecretRefs(node, name, check);
  }
  if (!check.failed()) checkServer(table, spec, check);
  return spec;
}

void readServers(const toml::table& root, Manifest& manifest, Checker& check) {
  for (const auto& [key, node] : root) {
    if (key.str() != "server") {
      check.fail(key.source(), std::string(key.str()), "unknown key (only [[server]] tables)");
    }
  }
  const auto* servers = root.get("server");
  if (servers == nullptr) return;
  const auto* array = servers->as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    return check.fail(servers->source(), "server", "must be [[server]] tables");
  }
  std::set<std::string> names;
  for (const auto& item : *array) {
    const auto& table = *item.as_table();
    auto spec = readServer(table, check);
    if (check.failed()) return;
    if (!names.insert(spec.name).second) {
      return check.fail(table.get("name")->source(), "name",
                        "duplicate server name \"" + spec.name + "\"");
    }
    manifest.servers.push_back(std::move(spec));
  }
}

}  // namespace

Policy ServerSpec::policyFor(const std::string& tool) const {
  auto found = tool_policy.find(tool);
  return found != tool_policy.end() ? found->second : policy;
}

const ServerSpec* Manifest::find(const std::string& name) const {
  for (const auto& server : servers) {
    if (server.name == name) return &server;
  }
  return nullptr;
}

bool validGlob(const std::string& pattern) {
  if (pattern.empty()) return false;
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (static_cast<unsigned char>(c) < 0x20) return false;
    if (c == '[' && !in_class) {
      in_class = true;
      if (i + 1 < pattern.size() && (pattern[i + 1] == '!' || pattern[i + 1] == '^')) ++i;
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') ++i;  // a leading ] is literal
    } else if (c == ']' && in_class) {
      in_class = false;
    }
  }
  return !in_class;
}

bool globMatch(const std::string& glob, const std::string& name) {
  return fnmatch(glob.c_str(), name.c_str(), 0) == 0;
}

Result<Manifest> loadManifest(const std::string& path, const config::SecretLookup& secrets) {
  Manifest manifest;
  manifest.path = path;
  std::error_code ignored;
  if (!std::filesystem::exists(path, ignored)) return manifest;
  manifest.found = true;
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    return Status::error(path + ":" + std::to_string(e.source().begin.line) +
                         ": syntax: " + std::string(e.description()));
  }
  Checker check(path);
  resolveServers(root, secrets, check);
  readServers(root, manifest, check);
  if (check.failed()) return Status::error(check.error());
  return manifest;
}

Status checkPlainHttp(const Manifest& manifest) {
  for (const auto& server : manifest.servers) {
    if (server.headers.empty() || !config::isPlainHttpToRemote(server.url)) continue;
    return Status::error("MCP server " + server.name + ": url " + server.url +
                         " would send its headers in clear over plain http to a host that is "
                         "not loopback; use https, or set ALLOW_INSECURE_HTTP=true to allow it");
  }
  return Status::ok();
}

}  // namespace gantry::mcp
