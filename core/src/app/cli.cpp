#include "app/cli.h"

#include <sys/prctl.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "agent/perf_command.h"
#include "agent/tokens_command.h"
#include "app/daemon.h"
#include "app/init_command.h"
#include "app/mcp_sandbox_options.h"
#include "approvals/approvals_command.h"
#include "budget/daily_budget.h"
#include "config/config.h"
#include "config/process_env.h"
#include "cron/cron_command.h"
#include "cron/cron_options.h"
#include "gantry/abi.h"
#include "health/doctor_command.h"
#include "health/status_command.h"
#include "log/log.h"
#include "mcp/host.h"
#include "mcp/manifest.h"
#include "memory/memory_command.h"
#include "memory/memory_stats.h"
#include "store/message_search.h"
#include "store/store.h"
#include "store/usage_repo.h"
#include "tools/tool_stats.h"
#include "vault/secret_command.h"
#include "vault/vault_location.h"
#include "watch/watch_command.h"

namespace fs = std::filesystem;

namespace gantry::app {
namespace {

using Args = std::vector<std::string>;

constexpr const char* kUsage = R"(usage: gantry [COMMAND] [ARGS]

A personal AI agent host: one persona, one model, the MCP tools you choose, one chat channel.
Configuration is the environment (see gantry(1) and README.md) plus PERSONA_DIR and MCP_MANIFEST.

commands:
  run                 run the agent (the default)
  init [DIR]          scaffold persona/, mcp.toml and an env file in DIR (default .)
  init --instance N   scaffold /etc/gantry/N.env and /etc/gantry/N/ for the gantry@N unit
  status              exit 0 when the running instance's heartbeat is fresh and its channel
                      receives and sends (neither side failing for 3 periods), 1 otherwise
  version             print version, build signature and module ABI
  tools               start the manifest's servers and print the published tools
  auth NAME           run the auth command of MCP server NAME (in its sandbox)
  memory list [--kind K] [--conflicts] | search QUERY | forget ID
  cron list | rm ID
  watch list | rm ID  the watches: MCP tools polled with no model call until an item is new
  approvals [show ID] | approve ID | deny ID
                      pending approvals of `ask` tools; one call in full; decide one
  secret set NAME | list | rm NAME   keep secrets in DATA_DIR/vault (value from stdin)
  search QUERY [--limit N]   search what the user and the model said
  usage [--days N]    model calls and tokens per day and model; the daily cap, if set
  tokens [CHAT_ID]    a chat's standing prompt, estimated part by part (as /tokens)
  perf                the last 10 turns: model, first-token and tool ms, rounds, prompt tokens
  toolstats           per tool: calls, ok, errors, mean and max ms, result chars; repairs
  memstats            memory rows by kind and state, conflicts, backlog, database size
  doctor [--repair]   check the database (FTS index, tool calls left running); --repair fixes
  help                this text; `gantry COMMAND --help` for one command

exit codes: 0 success, 1 runtime or configuration error, 2 usage error;
a piped run exits 1 when any of its turns failed

logs: JSON lines on stderr; when the REPL owns a terminal, in LOG_FILE (default
DATA_DIR/gantry.log, path printed at start) with warnings and errors on the terminal
)";

bool wantsHelp(const Args& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

int usageError(const std::string& message) {
  std::cerr << "gantry: " << message << "\n" << kUsage;
  return 2;
}

/// An operator command prints its result, not the records of what it did: warnings and errors
/// only, unless LOG_LEVEL=debug.
void operatorLogLevel(LogLevel configured) {
  log::setLevel(configured == LogLevel::kDebug ? configured
                                               : std::max(configured, LogLevel::kWarn));
}

/// Loads config for an operator command; prints the error and returns null on failure.
std::optional<config::Config> loadConfig() {
  auto config = config::load(config::processEnv(), vault::bootSecrets(config::processEnv()));
  if (!config.isOk()) {
    std::cerr << "gantry: " << config.status().message() << "\n";
    return std::nullopt;
  }
  operatorLogLevel(config->log_level);
  return config.value();
}

/// Opens DATA_DIR's database for an operator command; never migrates it (a running, maybe
/// older, daemon owns the schema).
std::unique_ptr<store::Store> openStore(const config::Config& config, store::Access access) {
  auto path = (fs::path(config.data_dir) / "gantry.db").string();
  if (!fs::exists(path)) {
    std::cerr << "gantry: no database at " << path << " (check DATA_DIR)\n";
    return nullptr;
  }
  auto store = store::Store::open(path, access);
  Status usable = store.isOk() ? store.value()->requireSchema() : store.status();
  if (!usable.isOk()) {
    std::cerr << "gantry: " << usable.message() << "\n";
    return nullptr;
  }
  return std::move(store.value());
}

int versionCommand(const Args& args) {
  if (!args.empty() && !wantsHelp(args)) return usageError("version takes no arguments");
  std::cout << "gantry " << GANTRY_VERSION << "\n"
            << "build: " << GANTRY_BUILD_SIGNATURE << "\n"
            << "module ABI: " << GANTRY_ABI_VERSION << "\n";
  return 0;
}

int toolsCommand(const Args& args) {
  if (wantsHelp(args)) {
    std::cout << "usage: gantry tools\nStarts the servers of MCP_MANIFEST, prints the published "
                 "tools with estimated tokens, stops them.\n";
    return 0;
  }
  auto config = loadConfig();
  if (!config) return 1;
  mcp::Manifest manifest;
  if (fs::exists(config->mcp_manifest)) {
    auto loaded = mcp::loadManifest(config->mcp_manifest, vault::bootSecrets(config::processEnv()));
    if (!loaded.isOk()) return std::cerr << "gantry: " << loaded.status().message() << "\n", 1;
    manifest = loaded.value();
  }
  auto host = mcp::McpHost::start(manifest, mcpOptionsFor(*config));
  if (!host.isOk()) return std::cerr << "gantry: " << host.status().message() << "\n", 1;
  std::cout << host.value()->describeTools();
  host.value()->shutdown();
  return 0;
}

int authCommand(const Args& args) {
  if (wantsHelp(args)) return std::cout << "usage: gantry auth NAME\n", 0;
  if (args.size() != 1) return usageError("auth needs exactly one server NAME");
  auto config = loadConfig();
  if (!config) return 1;
  auto manifest = mcp::loadManifest(config->mcp_manifest, vault::bootSecrets(config::processEnv()));
  if (!manifest.isOk()) return std::cerr << "gantry: " << manifest.status().message() << "\n", 1;
  return mcp::authCommand(manifest.value(), args[0], mcpOptionsFor(*config));
}

int memoryCommand(const Args& args) {
  if (wantsHelp(args) || args.empty()) {
    std::cout << "usage: gantry memory list [--kind K] [--conflicts] | search QUERY | forget ID\n";
    return args.empty() ? 2 : 0;
  }
  auto config = loadConfig();
  if (!config) return 1;
  bool writes = args[0] == "forget";
  auto store = openStore(*config, writes ? store::Access::kNoSchema : store::Access::kReadOnly);
  if (!store) return 1;
  return memory::memoryCommand(*store, args, std::cout, std::cerr);
}

/// `gantry cron|watch list | rm ID`: rows shown in CRON_TZ, the store written only by rm.
using ZonedCommand = int (*)(store::Store&, const std::vector<std::string>&, const cron::Zone&,
                             std::ostream&, std::ostream&);
int zonedCommand(const Args& args, const char* usage, ZonedCommand run) {
  if (wantsHelp(args) || args.empty()) {
    std::cout << usage;
    return args.empty() ? 2 : 0;
  }
  auto config = loadConfig();
  if (!config) return 1;
  auto zone = cron::loadCronZone(config->cron_tz);
  if (!zone.isOk()) return std::cerr << "gantry: " << zone.status().message() << "\n", 1;
  bool writes = args[0] == "rm";
  auto store = openStore(*config, writes ? store::Access::kNoSchema : store::Access::kReadOnly);
  if (!store) return 1;
  return run(*store, args, zone.value(), std::cout, std::cerr);
}

int cronCommand(const Args& args) {
  return zonedCommand(args, "usage: gantry cron list | rm ID\n", cron::cronCommand);
}

int watchCommand(const Args& args) {
  return zonedCommand(args,
                      "usage: gantry watch list | rm ID\nLists the watches (id first, "
                      "tab-separated: id, tool, interval, next poll, chat, state, prompt) or "
                      "removes one.\n",
                      watch::watchCommand);
}

/// `gantry approvals [show ID] | approve ID | deny ID`; name is the command word.
int approvalsCommand(const std::string& name, const Args& args) {
  if (wantsHelp(args)) {
    std::cout << "usage: gantry approvals [show ID] | approve ID | deny ID\nLists the pending "
                 "approvals of `ask` tools (id first, tab-separated), shows one call with every "
                 "argument in full, or decides one; the instance waiting for it goes on within "
                 "a second.\n";
    return 0;
  }
  auto config = loadConfig();
  if (!config) return 1;
  bool writes = name != "approvals";
  auto store = openStore(*config, writes ? store::Access::kNoSchema : store::Access::kReadOnly);
  if (!store) return 1;
  auto key = approvals::loadSealKey(config->data_dir);
  if (!key.isOk()) return std::cerr << "gantry: " << key.status().message() << "\n", 1;
  approvals::ApprovalOptions options;
  options.seal_key = key.value();
  approvals::Approvals approvals(*store, options);
  Args words{name};
  words.insert(words.end(), args.begin(), args.end());
  return approvals::approvalsCommand(approvals, words, std::cout, std::cerr);
}

int searchCommand(const Args& args) {
  if (wantsHelp(args) || args.empty()) {
    std::cout
        << "usage: gantry search QUERY [--limit N]\nSearches what the user and the model "
           "said (not tool results); prints id, time, role and the matching passage. A turn's "
           "messages are found once its chat has gone idle.\n";
    return args.empty() ? 2 : 0;
  }
  int limit = 20;
  Args words;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] != "--limit") {
      words.push_back(args[i]);
    } else if (i + 1 >= args.size() || (limit = std::atoi(args[++i].c_str())) <= 0) {
      return usageError("--limit needs a positive number");
    }
  }
  std::string query;
  for (const auto& word : words) query += (query.empty() ? "" : " ") + word;
  auto config = loadConfig();
  if (!config) return 1;
  auto store = openStore(*config, store::Access::kReadOnly);
  if (!store) return 1;
  auto hits = store::searchMessages(*store, query, limit);
  if (!hits.isOk()) return std::cerr << "gantry: " << hits.status().message() << "\n", 1;
  for (const auto& hit : hits.value()) {
    std::cout << hit.message_id << "\t" << log::isoUtc(hit.created_at) << "\t" << hit.role << "\t"
              << hit.snippet << "\n";
  }
  return 0;
}

/// The last row of `gantry usage` when a daily cap is set: today in CRON_TZ against it.
int printCap(const config::Config& config, store::Store& store) {
  if (config.budget_daily_tokens <= 0) return 0;
  auto zone = cron::loadCronZone(config.cron_tz);
  if (!zone.isOk()) return std::cerr << "gantry: " << zone.status().message() << "\n", 1;
  budget::DailyBudget budget(store, config.budget_daily_tokens, zone.value());
  if (Status s = budget.load(); !s.isOk()) return std::cerr << "gantry: " << s.message() << "\n", 1;
  const budget::BudgetDay day = budget.today();
  std::cout << "cap\t" << budget::localDay(store::nowMs(), zone->tz) << "\t" << day.spent << "\t"
            << day.cap << "\t" << zone->name << "\n";
  return 0;
}

int usageCommand(const Args& args) {
  if (wantsHelp(args)) {
    std::cout << "usage: gantry usage [--days N]\nModel calls per UTC day and model over the "
                 "last N days (default 7): date, model (as the responses named it), calls, "
                 "prompt, completion and cached tokens; a trailing 'est:K' says K calls' tokens "
                 "are chars/4 estimates. With BUDGET_DAILY_TOKENS set, a last row: cap, "
                 "today's date in CRON_TZ, tokens spent today, today's cap (with /budget "
                 "raises), CRON_TZ.\n";
    return 0;
  }
  int days = 7;
  if (args.size() == 2 && args[0] == "--days") days = std::atoi(args[1].c_str());
  if ((!args.empty() && args.size() != 2) || days <= 0) return usageError("usage takes [--days N]");
  auto config = loadConfig();
  if (!config) return 1;
  auto store = openStore(*config, store::Access::kReadOnly);
  if (!store) return 1;
  auto rows = store::UsageRepo(*store).daily(days, store::nowMs(), true);
  if (!rows.isOk()) return std::cerr << "gantry: " << rows.status().message() << "\n", 1;
  for (const auto& day : rows.value()) {
    std::cout << day.date << "\t" << day.model << "\t" << day.calls << "\t" << day.prompt_tokens
              << "\t" << day.completion_tokens << "\t" << day.cached_tokens
              << (day.estimated_calls > 0 ? "\test:" + std::to_string(day.estimated_calls) : "")
              << "\n";
  }
  return printCap(*config, *store);
}

/// A report read from DATA_DIR's database: `gantry tokens|perf|toolstats|memstats`, each
/// the same facts as its slash command, one row per line, tab-separated.
using ReportCommand = int (*)(store::Store&, const Args&, std::ostream&, std::ostream&);

int reportCommand(const Args& args, ReportCommand run, const char* help) {
  if (wantsHelp(args)) return std::cout << help, 0;
  auto config = loadConfig();
  if (!config) return 1;
  auto store = openStore(*config, store::Access::kReadOnly);
  if (!store) return 1;
  return run(*store, args, std::cout, std::cerr);
}

constexpr const char* kTokensHelp =
    "usage: gantry tokens [CHAT_ID]\nThe standing prompt of a chat (default: the chat whose turn "
    "ended last) as recorded when its last turn ended: a `chat ID recorded` row, then part, est. "
    "tokens (chars/4), detail; `cache could keep, last turn` is how much of that turn's requests "
    "a model's prompt cache could keep from the request before each; `reported` is the last "
    "turn's prompt tokens as the endpoint reported them.\n";
constexpr const char* kPerfHelp =
    "usage: gantry perf\nThe last 10 turns, newest first: started, chat, outcome, model_ms, "
    "first_token_ms (-1: not streamed), tool_ms, total_ms, rounds (model calls), tool_calls, "
    "prompt_tokens (as reported; 0: none).\n";
constexpr const char* kToolStatsHelp =
    "usage: gantry toolstats\n`tool NAME calls ok errors mean_ms max_ms result_chars` per tool "
    "(result chars before truncation), then `repair KIND count` for name_repaired, "
    "server_enabled_by_call, unknown_tool, constrained_retry, printed_call, think_promoted.\n";
constexpr const char* kMemStatsHelp =
    "usage: gantry memstats\n`kind KIND rows`, `state active|expired|superseded rows`, "
    "`conflicts unresolved rows`, `consolidation backlog rows`, `database bytes N`.\n";

int secretCommand(const Args& args) {
  if (wantsHelp(args)) {
    std::cout << "usage: gantry secret set NAME | list | rm NAME\nKeeps secrets in DATA_DIR/vault, "
                 "unlocked by GANTRY_VAULT_PASSPHRASE or GANTRY_VAULT_KEY_FILE; set reads the "
                 "value from standard input.\n";
    return 0;
  }
  // The raw environment: the references in it may name secrets this command is about to set.
  return vault::secretCommand(args, config::processEnv(), std::cin, std::cout, std::cerr);
}

int runCommand(const Args& args) {
  if (wantsHelp(args)) {
    std::cout << "usage: gantry [run]\nRuns the agent: CHANNEL's module receives, PROVIDER's "
                 "module answers. See gantry(1) for the environment.\n";
    return 0;
  }
  if (!args.empty()) return usageError("run takes no arguments");
  return runDaemon();
}

}  // namespace

int main(int argc, char** argv) {
  // First of all: no other process of our uid reads our memory, environment or descriptors
  // through /proc or ptrace, and no core dump holds a decrypted secret.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  config::captureEnvironment();
  Args all(argv + 1, argv + argc);
  std::string command = all.empty() ? "run" : all[0];
  Args args(all.empty() ? all.begin() : all.begin() + 1, all.end());
  static const std::map<std::string, int (*)(const Args&)> kCommands = {
      {"run", runCommand},
      {"version", versionCommand},
      {"status", health::statusCommand},
      {"tools", toolsCommand},
      {"auth", authCommand},
      {"memory", memoryCommand},
      {"cron", cronCommand},
      {"watch", watchCommand},
      {"doctor", health::doctorCommand},
      {"secret", secretCommand},
      {"search", searchCommand},
      {"usage", usageCommand},
      {"tokens", [](const Args& a) { return reportCommand(a, agent::tokensCommand, kTokensHelp); }},
      {"perf", [](const Args& a) { return reportCommand(a, agent::perfCommand, kPerfHelp); }},
      {"toolstats",
       [](const Args& a) { return reportCommand(a, tools::toolStatsCommand, kToolStatsHelp); }},
      {"memstats",
       [](const Args& a) { return reportCommand(a, memory::memStatsCommand, kMemStatsHelp); }},
      {"approvals", [](const Args& a) { return approvalsCommand("approvals", a); }},
      {"approve", [](const Args& a) { return approvalsCommand("approve", a); }},
      {"deny", [](const Args& a) { return approvalsCommand("deny", a); }}};
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return 0;
  }
  if (command == "--version") return versionCommand({});
  if (command == "init") return initCommand(args, std::cout, std::cerr);
  auto it = kCommands.find(command);
  if (it == kCommands.end()) return usageError("unknown command \"" + command + "\"");
  // Before the command reads its configuration (some never do): LOG_LEVEL as it is set.
  if (command != "run") {
    LogLevel configured = LogLevel::kInfo;
    const auto level_env = config::processEnv()("LOG_LEVEL");
    if (level_env) log::parseLevel(*level_env, &configured);
    operatorLogLevel(configured);
  }
  try {
    return it->second(args);
  } catch (const std::exception& e) {
    std::cerr << "gantry: " << log::redact(e.what()) << "\n";
    return 1;
  }
}

}  // namespace gantry::app
