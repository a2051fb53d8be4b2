#include "config/config.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <regex>
#include <vector>

#include "config/process_env.h"
#include "config/secret_ref.h"
#include "log/log.h"

namespace gantry::config {
namespace {

/// Reads one variable after another, keeping the first error.
class Reader {
 public:
  Reader(const EnvLookup& env, const SecretLookup& secrets) : env_(env), secrets_(secrets) {}
  const Status& status() const { return status_; }

  /// The variable's value with its secret:// references resolved; one that cannot be
  /// resolved fails the read (it is never used as is).
  std::optional<std::string> get(const char* name) {
    auto value = env_(name);
    if (!value || !holdsSecretRef(*value)) return value;
    auto resolved = resolveSecretRefs(name, *value, secrets_);
    if (!resolved.isOk() && status_.isOk()) status_ = resolved.status();
    return status_.isOk() ? std::optional<std::string>(resolved.value()) : std::nullopt;
  }

  void integer(const char* name, int* out, int min, int max) {
    auto value = get(name);
    if (!value || !status_.isOk()) return;
    int parsed = 0;
    auto [ptr, ec] = std::from_chars(value->data(), value->data() + value->size(), parsed);
    if (ec != std::errc() || ptr != value->data() + value->size() || parsed < min || parsed > max) {
      fail(name, *value,
           "is not an integer in " + std::to_string(min) + ".." + std::to_string(max));
      return;
    }
    *out = parsed;
  }

  void boolean(const char* name, bool* out) {
    auto value = get(name);
    if (!value || !status_.isOk()) return;
    if (*value == "true" || *value == "1" || *value == "yes" || *value == "on") {
      *out = true;
    } else if (*value == "false" || *value == "0" || *value == "no" || *value == "off") {
      *out = false;
    } else {
      fail(name, *value, "is not a boolean (true or false)");
    }
  }

  void text(const char* name, std::string* out) {
    if (auto value = get(name); value && status_.isOk()) *out = *value;
  }

  /// One of a fixed set; returns the index chosen or -1 when unset.
  int oneOf(const char* name, const std::vector<std::string>& allowed, std::string* out = nullptr) {
    auto value = get(name);
    if (!value || !status_.isOk()) return -1;
    for (std::size_t i = 0; i < allowed.size(); ++i) {
      if (allowed[i] == *value) {
        if (out) *out = *value;
        return static_cast<int>(i);
      }
    }
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    fail(name, *value, "is not one of: " + list);
    return -1;
  }

  void fail(const char* name, const std::string& value, const std::string& why) {
    if (status_.isOk()) status_ = Status::error(std::string(name) + ": \"" + value + "\" " + why);
  }

 private:
  const EnvLookup& env_;
  const SecretLookup& secrets_;
  Status status_;
};

void readPaths(Reader& r, Config& c) {
  r.text("PERSONA_DIR", &c.persona_dir);
  r.text("DATA_DIR", &c.data_dir);
  r.text("MCP_MANIFEST", &c.mcp_manifest);
  c.mcp_sandbox = r.oneOf("MCP_SANDBOX", {"on", "off"}) != 1;
  r.boolean("ALLOW_INSECURE_HTTP", &c.allow_insecure_http);
  r.text("GANTRY_MODULE_DIR", &c.module_dir);
}

void readModules(Reader& r, Config& c) {
  static const std::regex kModuleName("[a-z0-9_]+");
  for (auto [name, out] : {std::pair{"CHANNEL", &c.channel}, std::pair{"PROVIDER", &c.provider}}) {
    auto value = r.get(name);
    if (!value) continue;
    if (!std::regex_match(*value, kModuleName)) {
      r.fail(name, *value, "is not a module name ([a-z0-9_]+)");
    }
    *out = *value;
  }
}

void readLimits(Reader& r, Config& c) {
  r.integer("HISTORY_MAX_MESSAGES", &c.history_max_messages, 2, 100000);
  r.integer("HISTORY_MAX_TOKENS", &c.history_max_tokens, 256, 100000000);
  r.integer("TOOL_RESULT_MAX_CHARS", &c.tool_result_max_chars, 100, 100000000);
  r.integer("TOOL_MAX_ITERATIONS", &c.tool_max_iterations, 1, 1000);
  r.integer("TOOL_TIMEOUT_SECONDS", &c.tool_timeout_seconds, 1, 86400);
  r.integer("TOOL_SCHEMA_MAX_TOKENS", &c.tool_schema_max_tokens, 0, 100000000);
  // At most an approval's lifetime (15 min): waiting longer could only end in expiry.
  r.integer("APPROVAL_WAIT_SECONDS", &c.approval_wait_seconds, 0, 900);
}

/// TOOL_ENABLE_HOLD: seconds, or a number with s, m or h.
void readEnableHold(Reader& r, Config& c) {
  static const std::regex kDuration("([0-9]{1,7})([smh]?)");
  auto value = r.get("TOOL_ENABLE_HOLD");
  std::smatch m;
  if (!value) return;
  if (!std::regex_match(*value, m, kDuration) || std::stol(m[1].str()) == 0) {
    r.fail("TOOL_ENABLE_HOLD", *value, "is not a duration such as 90s, 30m or 6h");
    return;
  }
  const long unit = m[2] == "h" ? 3600 : m[2] == "m" ? 60 : 1;
  c.tool_enable_hold_seconds = static_cast<int>(std::min(std::stol(m[1].str()) * unit, 31536000L));
}

void readToolPublishing(Reader& r, Config& c) {
  r.oneOf("TOOL_PUBLISH", {"lazy", "eager"}, &c.tool_publish);
  r.integer("TOOL_EAGER_MAX_TOKENS", &c.tool_eager_max_tokens, 0, 100000000);
  readEnableHold(r, c);
}

void readMemoryAndCron(Reader& r, Config& c) {
  r.boolean("MEMORY_ENABLED", &c.memory_enabled);
  r.text("MEMORY_BACKEND", &c.memory_backend);
  if (c.memory_backend != "builtin" &&
      (c.memory_backend.rfind("mcp:", 0) != 0 || c.memory_backend.size() == 4)) {
    r.fail("MEMORY_BACKEND", c.memory_backend, "is not builtin or mcp:<server>");
  }
  r.integer("MEMORY_CONSOLIDATE_MINUTES", &c.memory_consolidate_minutes, 0, 525600);
  r.boolean("CRON_ENABLED", &c.cron_enabled);
  r.text("CRON_TZ", &c.cron_tz);
  r.integer("CRON_MAX_JOBS", &c.cron_max_jobs, 1, 100000);
  r.integer("CRON_TICK_SECONDS", &c.cron_tick_seconds, 1, 3600);
  r.boolean("WATCH_ENABLED", &c.watch_enabled);
  r.integer("WATCH_MAX", &c.watch_max, 1, 100000);
  r.integer("WATCH_MIN_SECONDS", &c.watch_min_seconds, 1, 86400);
  r.integer("BUDGET_DAILY_TOKENS", &c.budget_daily_tokens, 0, 2000000000);
}

void readChat(Reader& r, Config& c) {
  r.boolean("STREAM_REPLIES", &c.stream_replies);
  int trace = r.oneOf("TOOL_TRACE", {"compact", "full", "off"});
  if (trace >= 0) c.tool_trace = static_cast<TraceMode>(trace);
  r.integer("COALESCE_SETTLE_MS", &c.coalesce_settle_ms, 0, 600000);
  r.integer("SPINUP_NOTICE_MS", &c.spinup_notice_ms, 0, 600000);
  r.integer("HEARTBEAT_SECONDS", &c.heartbeat_seconds, 1, 86400);
  r.integer("RECORD_KEEP_DAYS", &c.record_keep_days, 0, 36500);
  int level = r.oneOf("LOG_LEVEL", {"debug", "info", "warn", "error"});
  if (level >= 0) c.log_level = static_cast<LogLevel>(level);
  r.text("LOG_FILE", &c.log_file);
}

}  // namespace

EnvLookup processEnv() {
  return [](std::string_view name) -> std::optional<std::string> {
    const std::string* value = capturedVariable(name);
    return value != nullptr ? std::optional<std::string>(*value) : std::nullopt;
  };
}

Result<EnvLookup> resolvedProcessEnv(const SecretLookup& secrets) {
  std::map<std::string, std::string, std::less<>> resolved;
  for (const std::string& entry : capturedEnvironment()) {
    const std::string_view pair(entry);
    const auto equals = pair.find('=');
    if (equals == std::string_view::npos || !holdsSecretRef(pair.substr(equals + 1))) continue;
    const std::string name(pair.substr(0, equals));
    auto value = resolveSecretRefs(name, pair.substr(equals + 1), secrets);
    if (!value.isOk()) return value.status();
    resolved[name] = value.value();
  }
  auto base = processEnv();
  return EnvLookup([resolved = std::move(resolved), base](std::string_view name) {
    auto found = resolved.find(name);
    return found != resolved.end() ? std::optional<std::string>(found->second) : base(name);
  });
}

void readApi(Reader& r, Config& c) {
  r.text("API_LISTEN", &c.api_listen);
  r.text("API_TOKEN", &c.api_token);
  r.text("API_APPROVE_TOKEN", &c.api_approve_token);
  r.text("API_OWNER_CHAT", &c.api_owner_chat);
  r.integer("TASK_MAX_STEPS", &c.task_max_steps, 1, 1000);
  r.integer("TASK_WALL_SECONDS", &c.task_wall_seconds, 1, 86400);
  r.integer("TASK_CONCURRENCY", &c.task_concurrency, 1, 64);
  if (!c.api_listen.empty() && c.api_token.empty()) {
    r.fail("API_TOKEN", "", "is required when API_LISTEN is set");
  }
  if (!c.api_approve_token.empty() && c.api_approve_token == c.api_token) {
    r.fail("API_APPROVE_TOKEN", "[redacted]", "must differ from API_TOKEN");
  }
}

Result<Config> load(const EnvLookup& env, const SecretLookup& secrets) {
  Config c;
  Reader r(env, secrets);
  readModules(r, c);
  readPaths(r, c);
  readLimits(r, c);
  readToolPublishing(r, c);
  readMemoryAndCron(r, c);
  readChat(r, c);
  readApi(r, c);
  if (!r.status().isOk()) return r.status();
  return c;
}

}  // namespace gantry::config
