#pragma once
/// Config: every core variable of DESIGN 3, parsed and validated once at boot. Module keys
/// (LLM_*, TELEGRAM_*, …) are validated by their modules' factories.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "config/secret_ref.h"
#include "gantry/host.h"
#include "gantry/status.h"

namespace gantry::config {

enum class TraceMode { kCompact, kFull, kOff };

struct Config {
  std::string channel = "telegram";
  std::string provider = "openai";
  std::string persona_dir = "/persona";
  std::string data_dir = "/data";
  std::string mcp_manifest = "/etc/gantry/mcp.toml";
  bool mcp_sandbox = true;  ///< MCP_SANDBOX: stdio servers start inside Landlock
  /// ALLOW_INSECURE_HTTP: a credential may travel over plain http to a host not loopback.
  bool allow_insecure_http = false;
  std::string module_dir;  ///< empty: the build tree's modules/ or the install default
  int history_max_messages = 200;
  int history_max_tokens = 128000;
  int tool_result_max_chars = 16000;
  int tool_max_iterations = 20;
  int tool_timeout_seconds = 120;
  int tool_schema_max_tokens = 0;
  std::string tool_publish;              ///< "lazy", "eager", or "": lazy above the next limit
  int tool_eager_max_tokens = 1000;      ///< est. MCP schema tokens published eagerly
  int tool_enable_hold_seconds = 21600;  ///< TOOL_ENABLE_HOLD: 6h
  int approval_wait_seconds = 60;        ///< 0: an `ask` call parks at once
  bool memory_enabled = true;
  std::string memory_backend = "builtin";  ///< or "mcp:<server>"
  int memory_consolidate_minutes = 30;
  bool cron_enabled = true;
  std::string cron_tz = "UTC";
  int cron_max_jobs = 50;
  int cron_tick_seconds = 15;
  bool watch_enabled = true;
  int watch_max = 50;
  int watch_min_seconds = 60;   ///< a shorter watch interval is raised to this
  int budget_daily_tokens = 0;  ///< 0: no cap; the day is midnight to midnight in CRON_TZ
  bool stream_replies = false;
  TraceMode tool_trace = TraceMode::kCompact;
  int coalesce_settle_ms = 2000;
  int spinup_notice_ms = 4000;
  int heartbeat_seconds = 30;
  int record_keep_days = 0;  ///< 0 = keep the record forever
  // The local API (off unless api_listen is set): loopback only, bearer tokens.
  std::string api_listen;  ///< 127.0.0.1:PORT, [::1]:PORT or unix:PATH
  std::string api_token;
  std::string api_approve_token;  ///< empty: the approval endpoints are off
  std::string api_owner_chat;     ///< where task replies and notifications go
  int task_max_steps = 16;
  int task_wall_seconds = 300;
  int task_concurrency = 2;
  LogLevel log_level = LogLevel::kInfo;
  /// Where the records go while the REPL owns a terminal; empty: DATA_DIR/gantry.log.
  std::string log_file;
};

/// Looks a variable up; nullopt when unset. Empty values count as unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;

/// The process environment as it is (secret:// references unresolved).
EnvLookup processEnv();

/// The process environment with every `secret://NAME` resolved through secrets, consulted
/// only when a value holds a reference, so any variable the host or a module reads gets the
/// secret. Fails naming the first variable that cannot be resolved (never its value).
Result<EnvLookup> resolvedProcessEnv(const SecretLookup& secrets);

/// Parses and validates. The error names the variable and the accepted values, e.g.
/// `HISTORY_MAX_MESSAGES: "abc" is not an integer in 1..100000`. A value still holding
/// secret:// is resolved through secrets (null: it fails, naming the variable).
Result<Config> load(const EnvLookup& env, const SecretLookup& secrets = nullptr);

}  // namespace gantry::config
