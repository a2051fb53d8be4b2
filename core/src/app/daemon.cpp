#include "app/daemon.h"

#include <Poco/JSON/Object.h>
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "agent/agent.h"
#include "agent/perf_command.h"
#include "api/api_server.h"
#include "app/core_host.h"
#include "app/data_dir_check.h"
#include "app/error_reporter.h"
#include "app/mcp_sandbox_options.h"
#include "app/recording_provider.h"
#include "app/reexec.h"
#include "app/signals.h"
#include "app/terminal_log.h"
#include "approvals/approvals.h"
#include "budget/budget_gate.h"
#include "budget/capped_provider.h"
#include "budget/daily_budget.h"
#include "chat/chat_service.h"
#include "chat/redacting_channel.h"
#include "chat/slash_commands.h"
#include "config/config.h"
#include "cron/cron_options.h"
#include "cron/cron_tools.h"
#include "cron/scheduler.h"
#include "health/channel_watch.h"
#include "health/status_text.h"
#include "log/log.h"
#include "mcp/host.h"
#include "mcp/manifest.h"
#include "memory/consolidator.h"
#include "memory/hydration.h"
#include "memory/memory_stats.h"
#include "memory/memory_tools.h"
#include "memory/persona_conflicts.h"
#include "modules/loader.h"
#include "persona/persona.h"
#include "store/heartbeat_repo.h"
#include "store/kv_repo.h"
#include "store/maintenance.h"
#include "store/memory_repo.h"
#include "store/message_index.h"
#include "store/message_repo.h"
#include "store/task_repo.h"
#include "tools/catalog.h"
#include "tools/enable_tool.h"
#include "tools/publication.h"
#include "tools/tool_stats.h"
#include "vault/vault_location.h"
#include "watch/poller.h"
#include "watch/watch_call.h"
#include "watch/watch_tools.h"

namespace fs = std::filesystem;

namespace gantry::app {
namespace {

constexpr std::chrono::seconds kShutdownBound{30};

/// Boot failed: one clear line, exit 1.
struct BootError {
  std::string message;
};

void check(const Status& status) {
  if (!status.isOk()) throw BootError{status.message()};
}

template <class T>
T take(Result<T> result) {
  if (!result.isOk()) throw BootError{result.status().message()};
  return std::move(result.value());
}

/// Everything the running process owns, in construction order (destroyed in reverse).
class Daemon {
 public:
  int run() {
    boot();
    if (!log_file_.empty()) std::cerr << "gantry: logs go to " << log_file_ << "\n";
    log::releaseHeld();
    serve();
    return stop();
  }
  /// True when the run ended to take up a changed vault (SIGHUP).
  bool restartRequested() const { return restart_; }

 private:
  void boot() {
    // Taken from the first wait on: a SIGTERM during start-up ends it (listenSignals()).
    listenSignals();
    // Every variable (the modules' too) and the manifest see resolved secret:// values.
    secrets_ = recordingResolved(vault::bootSecrets(config::processEnv(), vault_generation_));
    auto env = take(config::resolvedProcessEnv(secrets_));
    config_ = take(config::load(env));
    log::setLevel(config_.log_level);
    env_ = env;
    persona_ = take(persona::load(config_.persona_dir));
    openStore();
    log_file_ = take(routeLogsForTerminal(config_));
    pruneIfDue();
    loadModules();
    startTools();
    startPublication();
    checkVaultGeneration();
    startAgent();
    startApi();
    booting_ = false;
    log::info("ready", {{"channel", config_.channel},
                        {"provider", config_.provider},
                        {"model", provider_->model()},
                        {"tools", std::to_string(catalog_.schemas()->size())}});
  }

  void openStore() {
    std::error_code ec;
    fs::create_directories(config_.data_dir, ec);
    if (ec) throw BootError{"DATA_DIR: cannot create " + config_.data_dir + ": " + ec.message()};
    check(checkDataDirWritable(config_.data_dir));
    store_ = take(store::Store::open((fs::path(config_.data_dir) / "gantry.db").string()));
    for (const auto& call : take(store::MessageRepo(*store_).closeOrphanedToolCalls())) {
      log::warn("tool_call_closed_after_crash", {{"name", call.name}, {"call_id", call.call_id}});
    }
    approvals::ApprovalOptions approval_options;
    approval_options.seal_key = take(approvals::loadSealKey(config_.data_dir));
    approvals_ = std::make_unique<approvals::Approvals>(*store_, approval_options);
    // Turns that waited for a decision died with the last process: a decision continues them.
    if (auto parked = take(approvals_->parkOrphans()); parked > 0) {
      log::info("approvals_parked_after_restart", {{"count", std::to_string(parked)}});
    }
    heartbeat_ = std::make_unique<store::HeartbeatRepo>(*store_);
    usage_ = std::make_unique<store::UsageRepo>(*store_);
    check(heartbeat_->boot(::getpid(), config_.heartbeat_seconds, config_.channel));
  }

  /// The local API, when API_LISTEN asks for it (the kernel has no inbound port otherwise).
  void startApi() {
    if (config_.api_listen.empty()) return;
    api::ApiOptions options;
    options.listen = take(api::parseListenAddress(config_.api_listen));
    options.token = config_.api_token;
    options.approve_token = config_.api_approve_token;
    log::addSecret(config_.api_token, "API_TOKEN");
    if (!config_.api_approve_token.empty()) {
      log::addSecret(config_.api_approve_token, "API_APPROVE_TOKEN");
    }
    options.owner_chat = ownerChat();
    options.threads = config_.task_concurrency + 4;  // tasks never starve the other endpoints
    if (auto closed = take(store::TaskRepo(*store_).closeInterrupted()); closed > 0) {
      log::warn("tasks_closed_after_crash", {{"count", std::to_string(closed)}});
    }
    api::TaskOptions tasks;
    tasks.max_steps = config_.task_max_steps;
    tasks.wall = std::chrono::seconds(config_.task_wall_seconds);
    tasks.concurrency = config_.task_concurrency;
    tasks.owner_chat = options.owner_chat;
    tasks_ = std::make_unique<api::TaskService>(*agent_, *chat_channel_, *store_, tasks);
    api_ = take(api::ApiServer::start(
        options, {*tasks_, *approvals_, *chat_channel_, [this] { return apiStatus(); }}));
  }

  /// GET /status: what `gantry status` and /status tell, as JSON.
  std::string apiStatus() {
    Poco::JSON::Object out;
    out.set("model", provider_->model());
    out.set("channel", config_.channel);
    out.set("uptime_s", (store::nowMs() - started_) / 1000);
    out.set("tools", static_cast<int64_t>(catalog_.schemas()->size()));
    out.set("tasks_running", tasks_ ? tasks_->running() : 0);
    auto pending = approvals_->pending();
    out.set("approvals_pending", pending.isOk() ? static_cast<int64_t>(pending->size()) : 0);
    const int64_t received = watch_.sides().last_receive_ok_at;
    out.set("last_receive_ok_ms_ago", received ? store::nowMs() - received : int64_t{-1});
    std::ostringstream text;
    out.stringify(text);
    return text.str();
  }

  /// Keeps every value boot resolves, so SIGHUP can tell whether the vault changed them.
  config::SecretLookup recordingResolved(config::SecretLookup lookup) {
    return [this, lookup = std::move(lookup)](std::string_view name) {
      auto value = lookup(name);
      std::lock_guard lock(resolved_mutex_);
      if (value.isOk()) resolved_[std::string(name)] = value.value();
      return value;
    };
  }

  /// SIGHUP: a vault whose values for this instance's references changed is taken up by a
  /// restart in place (the modules and servers hold them since boot); an unchanged,
  /// unreadable or older vault changes nothing.
  void reloadSecrets() {
    std::map<std::string, std::string> resolved;
    {
      std::lock_guard lock(resolved_mutex_);
      resolved = resolved_;
    }
    if (resolved.empty()) return;
    auto generation = std::make_shared<vault::OpenedGeneration>(0);
    auto fresh = vault::bootSecrets(config::processEnv(), generation);
    bool changed = false;
    for (const auto& [name, value] : resolved) {
      auto now = fresh(name);
      if (!now.isOk()) {
        return log::error("vault_reload_failed",
                          {{"name", name}, {"error", now.status().message()}});
      }
      changed = changed || now.value() != value;
    }
    std::string path = (fs::path(config_.data_dir) / "vault").string();
    if (Status s = vault::checkGeneration(*generation, *vault_generation_, path); !s.isOk()) {
      return log::error("vault_reload_failed", {{"error", s.message()}});
    }
    if (!changed) return log::info("vault_unchanged", {});
    restart_ = true;
    requestStop();
  }

  /// The vault boot read (if any reference needed it) is not older than one read before:
  /// the highest generation is remembered in the database.
  void checkVaultGeneration() {
    const std::uint64_t seen = vault_generation_->load();
    if (seen == 0) return;
    store::KvRepo kv(*store_);
    auto known = kv.get("vault", "generation");
    std::uint64_t remembered = 0;
    if (known) std::from_chars(known->data(), known->data() + known->size(), remembered);
    std::string path = (fs::path(config_.data_dir) / "vault").string();
    check(vault::checkGeneration(seen, remembered, path));
    if (seen > remembered) check(kv.set("vault", "generation", std::to_string(seen)));
  }

  void loadModules() {
    std::string dir = modules::moduleDir(config_.module_dir);
    auto channel_module = take(modules::load(dir, ModuleKind::kChannel, config_.channel));
    auto provider_module = take(modules::load(dir, ModuleKind::kProvider, config_.provider));
    env_ = modules::withDeclaredDefaults(env_, {channel_module, provider_module});
    channel_host_ = std::make_unique<CoreHost>(config_.channel, env_, store_.get(), stopping_);
    provider_host_ = std::make_unique<CoreHost>(config_.provider, env_, store_.get(), stopping_);
    check(modules::checkConfig(channel_module, *channel_host_));
    check(modules::checkConfig(provider_module, *provider_host_));
    if (!config_.allow_insecure_http) {
      check(modules::checkPlainHttp(channel_module, *channel_host_));
      check(modules::checkPlainHttp(provider_module, *provider_host_));
    }
    redactSecrets(channel_module);
    redactSecrets(provider_module);
    module_provider_ = take(modules::createProvider(provider_module, *provider_host_));
    startBudget();
    provider_ = std::make_unique<RecordingProvider>(
        *module_provider_, *usage_, [budget = budget_.get()](const store::UsageRow& row) {
          budget->charge(row.prompt_tokens + row.completion_tokens);
        });
    channel_ = take(modules::createChannel(channel_module, *channel_host_));
    channel_->offerCommands(chat::menuCommands());
    watched_channel_ = std::make_unique<health::WatchedChannel>(*channel_, watch_);
    chat_channel_ = std::make_unique<chat::RedactingChannel>(*watched_channel_);
    startBudgetGate();
    startErrorReporting();
    log::info("modules_loaded",
              {{"dir", dir}, {"channel", channel_module.path}, {"provider", provider_module.path}});
  }

  /// BUDGET_DAILY_TOKENS: today's spend so far, from the usage record, before any call.
  void startBudget() {
    budget_ =
        std::make_unique<budget::DailyBudget>(*store_, config_.budget_daily_tokens, clockZone());
    check(budget_->load());
  }

  /// Every model call passes the cap: the agent's (turns, folds, tasks) and consolidation's.
  void startBudgetGate() {
    budget_gate_ = std::make_unique<budget::BudgetGate>(
        *budget_,
        [this](const std::string& chat_id, const std::string& text) {
          notify(chat_id, text, "budget");
        },
        ownerChat());
    turn_provider_ = std::make_unique<budget::CappedProvider>(*provider_, *budget_gate_, "turn");
  }

  /// A notice of unattended work (from: budget, watch) to a chat; a failure is only logged.
  void notify(const std::string& chat_id, const std::string& text, const char* from) {
    if (auto sent = chat_channel_->send(chat_id, text); !sent.isOk()) {
      log::warn("notice_not_sent", {{"from", from}, {"error", sent.status().message()}});
    }
  }

  /// Where what concerns the owner but no chat of its own goes (API notifications and task
  /// replies, the daily cap's notice): API_OWNER_CHAT, else the channel's owner chat.
  std::string ownerChat() const {
    return config_.api_owner_chat.empty() ? channel_->ownerChat() : config_.api_owner_chat;
  }

  /// Copies of log records go to the owner's chat when the channel's configuration asks for
  /// them (Channel::ownerReports, e.g. TELEGRAM_ERROR_REPORTING).
  void startErrorReporting() {
    OwnerReports reports = channel_->ownerReports();
    if (reports.chat_id.empty()) return;
    reporter_ = std::make_unique<ErrorReporter>(*chat_channel_, reports.chat_id, reports.min_level);
  }

  void redactSecrets(const modules::Module& module) {
    for (const ConfigKey* key = module.desc->config; key && key->name; ++key) {
      if (!key->secret) continue;
      if (auto value = env_(key->name)) log::addSecret(*value, key->name);
    }
  }

  void startTools() {
    mcp::Manifest manifest;
    if (fs::exists(config_.mcp_manifest)) {
      manifest = take(mcp::loadManifest(config_.mcp_manifest, secrets_));
      if (!config_.allow_insecure_http) check(mcp::checkPlainHttp(manifest));
    } else {
      log::info("mcp_manifest_missing", {{"path", config_.mcp_manifest}, {"servers", "0"}});
    }
    mcp_ = take(mcp::McpHost::start(manifest, mcpOptionsFor(config_)));
    addMemoryTools();
    addCronTools();
    addWatchTools();
    for (auto* source : mcp_->sources()) catalog_.add(source);
  }

  /// TOOL_PUBLISH; unset, the size of the MCP schemas at boot decides. Lazy adds mcp_enable.
  void startPublication() {
    const auto mcp_tokens = mcp_->estimatedTokens();
    tools::PublishOptions options;
    options.mode = config_.tool_publish == "lazy" ? tools::PublishMode::kLazy
                   : config_.tool_publish == "eager"
                       ? tools::PublishMode::kEager
                       : tools::defaultPublishMode(mcp_tokens, config_.tool_eager_max_tokens);
    options.hold = std::chrono::seconds(config_.tool_enable_hold_seconds);
    options.max_tokens = static_cast<std::size_t>(config_.tool_schema_max_tokens);
    publication_ = std::make_unique<tools::Publication>(catalog_, *store_, options);
    const bool lazy = options.mode == tools::PublishMode::kLazy;
    if (lazy) {
      enable_tool_ = std::make_unique<tools::McpEnableTool>(*publication_);
      catalog_.add(enable_tool_.get());
    }
    check(publication_->checkAtStart());
    log::info("tool_publish",
              {{"mode", lazy ? "lazy" : "eager"}, {"mcp_est_tokens", std::to_string(mcp_tokens)}});
  }

  void addMemoryTools() {
    if (!config_.memory_enabled) return;
    if (config_.memory_backend == "builtin") {
      memory_repo_ = std::make_unique<store::MemoryRepo>(*store_);
      persona_conflicts_ = std::make_unique<memory::PersonaConflicts>(*store_, persona_.text);
      memory_tools_ = std::make_unique<memory::MemoryTools>(*memory_repo_);
    } else {
      std::string server = config_.memory_backend.substr(4), error;
      memory_tools_ = mcp::makeMemoryBackend(*mcp_, server, memory::memoryToolSchemas(), &error);
      if (!memory_tools_) throw BootError{"MEMORY_BACKEND: " + error};
    }
    catalog_.add(memory_tools_.get());
  }

  void addCronTools() {
    if (!config_.cron_enabled) return;
    zone_ = take(cron::loadCronZone(config_.cron_tz));
    // Made here, started in startBackground(): a job added before then is not missed.
    scheduler_ = std::make_unique<cron::Scheduler>(
        *store_, *zone_, config_.cron_tick_seconds, [this](const store::CronJob& job) -> Status {
          auto reply = chat_->runScheduled(job.chat_id, job.prompt);
          return reply.isOk() ? Status::ok() : reply.status();
        });
    // A due job past the daily cap is recorded as skipped and runs no turn.
    scheduler_->setGate([this](const store::CronJob& job) -> std::optional<cron::Skip> {
      auto refused = budget_gate_->unattended("cron", "job " + std::to_string(job.id), job.chat_id);
      if (!refused) return std::nullopt;
      return cron::Skip{*refused, budget_->today().resets_at};
    });
    cron_tools_ = std::make_unique<cron::CronTools>(*store_, *zone_, config_.cron_max_jobs, nullptr,
                                                    [s = scheduler_.get()] { s->jobsChanged(); });
    catalog_.add(cron_tools_.get());
  }

  /// Watches poll through the catalog, as a model's call runs; made here, started in
  /// startBackground().
  void addWatchTools() {
    if (!config_.watch_enabled) return;
    cron::Zone zone = zone_ ? *zone_ : take(cron::loadCronZone(config_.cron_tz));
    watch::WatchOptions options{true, config_.watch_max, config_.watch_min_seconds};
    watch::PollerHooks hooks;
    hooks.call = [this](const store::Watch& w, const CancelToken& cancel) {
      tools::CallContext context{w.chat_id, &cancel,
                                 std::chrono::seconds(config_.tool_timeout_seconds)};
      return watch::callWatched(catalog_, w.tool, w.arguments, context);
    };
    hooks.run_turn = [this](const store::Watch& w, const std::string& message) {
      if (budget_gate_->unattended("watch", "watch " + std::to_string(w.id), w.chat_id)) {
        return watch::TurnOutcome::kSkipped;
      }
      auto reply = chat_->runScheduled(w.chat_id, message);
      return !reply.isOk() && chat::ChatService::isRefusedAtShutdown(reply.status())
                 ? watch::TurnOutcome::kNotStarted
                 : watch::TurnOutcome::kRan;
    };
    hooks.notify = [this](const std::string& chat_id, const std::string& text) {
      notify(chat_id, text, "watch");
    };
    poller_ = std::make_unique<watch::Poller>(*store_, zone, options, std::move(hooks));
    watch_tools_ = std::make_unique<watch::WatchTools>(
        *store_, catalog_, zone, options, [p = poller_.get()] { p->watchesChanged(); });
    catalog_.add(watch_tools_.get());
  }

  void startAgent() {
    agent::AgentOptions options;
    options.conversation = conversationOptions();
    options.tool_max_iterations = config_.tool_max_iterations;
    options.runner.timeout_seconds = config_.tool_timeout_seconds;
    options.runner.result_max_chars = static_cast<std::size_t>(config_.tool_result_max_chars);
    options.runner.approval_wait = std::chrono::seconds(config_.approval_wait_seconds);
    options.stream = config_.stream_replies;
    agent_ = std::make_unique<agent::Agent>(*turn_provider_, catalog_, *store_, options,
                                            approvals_.get(), publication_.get());
    agent_->setPersona(persona_.text);
    chat_ = std::make_unique<chat::ChatService>(*agent_, *chat_channel_, *store_, chatOptions(),
                                                commandTexts(), approvals_.get());
  }

  /// History bounds, memory hydration (none with MEMORY_ENABLED=false or an MCP memory
  /// backend) and the `[now]` line in CRON_TZ.
  session::ConversationOptions conversationOptions() const {
    session::ConversationOptions options;
    options.bounds.max_messages = config_.history_max_messages;
    options.bounds.max_tokens = config_.history_max_tokens;
    if (auto* memory = memory_repo_.get()) {
      options.hydrate = [memory, conflicts = persona_conflicts_.get()](const std::string& text) {
        return memory::hydrationBlock(*memory, text, 30, conflicts->withheldRows());
      };
    }
    options.now = [zone = clockZone()] { return cron::describeTime(store::nowMs(), zone); };
    return options;
  }

  /// CRON_TZ, the zone the prompt's `[now]` line is told in. With cron off a zone that does
  /// not load falls back to UTC (cron on fails boot on it in addCronTools).
  cron::Zone clockZone() const {
    if (zone_) return *zone_;
    auto zone = cron::loadCronZone(config_.cron_tz);
    if (zone.isOk()) return zone.value();
    log::warn("clock_zone_fallback", {{"error", zone.status().message()}});
    return {"UTC", cctz::utc_time_zone()};
  }

  chat::ChatOptions chatOptions() const {
    chat::ChatOptions options;
    options.stream.stream = config_.stream_replies;
    options.stream.trace = config_.tool_trace;
    options.stream.spinup_ms = config_.spinup_notice_ms;
    options.coalesce_settle_ms = config_.coalesce_settle_ms;
    options.owner_gate = [gate = budget_gate_.get()] { return gate->ownerTurn(); };
    options.commands["/budget"] = [budget = budget_.get()](const InboundMessage& m) {
      return budget::budgetCommand(*budget, m.text, store::nowMs());
    };
    if (auto* conflicts = persona_conflicts_.get()) {
      options.owner_note = [conflicts] {
        auto note = conflicts->untold();
        return chat::OwnerNote{note.text,
                               [conflicts, ids = note.conflict_ids] { conflicts->told(ids); }};
      };
    }
    return options;
  }

  chat::CommandTexts commandTexts() {
    health::StatusInputs inputs{
        &config_, store_.get(),      provider_.get(), &catalog_, zone_ ? &*zone_ : nullptr,
        started_, publication_.get()};
    store::Store& store = *store_;
    return {
        {"/status", [inputs](const std::string& chat) { return health::statusText(inputs, chat); }},
        {"/tools", [inputs](const std::string& chat) { return health::toolsText(inputs, chat); }},
        {"/tokens", [this](const std::string& chat) { return tokensText(chat); }},
        {"/perf", [&store](const std::string&) { return agent::perfText(store); }},
        {"/toolstats", [&store](const std::string&) { return tools::toolStatsText(store); }},
        {"/memstats", [&store](const std::string&) { return memory::memStatsText(store); }}};
  }

  /// /tokens: the chat's standing prompt, estimated, beside the last turn's reported count.
  std::string tokensText(const std::string& chat_id) {
    auto last = store::MessageRepo(*store_).lastTurn();
    return agent::budgetText(agent::promptBudget(agent_->standingPrompt(chat_id)),
                             last.isOk() ? last->prompt_tokens : 0);
  }

  void startBackground() {
    if (scheduler_) scheduler_->start();
    if (poller_) poller_->start();
    if (memory_repo_ && config_.memory_consolidate_minutes > 0) {
      memory::ConsolidatorOptions options;
      options.period = std::chrono::minutes(config_.memory_consolidate_minutes);
      consolidation_provider_ =
          std::make_unique<budget::CappedProvider>(*provider_, *budget_gate_, "consolidation");
      consolidator_ = std::make_unique<memory::Consolidator>(*store_, *consolidation_provider_,
                                                             persona_.user, options);
      consolidator_->start();
    }
    heartbeat_thread_ = std::thread([this] { heartbeatLoop(); });
  }

  /// SIGTERM/SIGINT stop a running instance gracefully; during start-up, whose waits (the
  /// store, MCP servers' boot wait) do not look at a flag, they end the process at once: it
  /// has taken no message and written nothing that a restart does not redo. A SIGHUP during
  /// start-up is ignored: what it would reload is being read.
  void listenSignals() {
    signals_ = std::make_unique<SignalThread>(
        [this] {
          if (!booting_) return requestStop();
          std::cerr << "gantry: stopped during start-up\n";
          std::_Exit(0);
        },
        [this] {
          if (booting_) return;
          reloadPersona();
          reloadSecrets();
        });
  }

  /// Forwards receive successes to the heartbeat, messages to the chat service.
  class Sink final : public InboundSink {
   public:
    explicit Sink(Daemon& d) : d_(d) {}
    void onMessage(InboundMessage message) noexcept override {
      d_.watch_.receiveOk(store::nowMs());
      d_.chat_->onMessage(std::move(message));
    }
    void onMessages(std::vector<InboundMessage> messages) noexcept override {
      d_.watch_.receiveOk(store::nowMs());
      d_.chat_->onMessages(std::move(messages));
    }
    void onReceiveOk() noexcept override { d_.watch_.receiveOk(store::nowMs()); }

   private:
    Daemon& d_;
  };

  void serve() {
    // Before cron can start a turn: a chat's interrupted turn is queued ahead of anything new.
    chat_->recoverAfterRestart();
    startBackground();
    Sink sink(*this);
    channel_status_ = channel_->run(sink);
    if (channel_status_.isOk() && !stopping_) chat_->drain();  // end of input: answer it all
  }

  void heartbeatLoop() {
    std::unique_lock lock(stop_mutex_);
    while (!stopping_) {
      beat();
      pruneIfDue();
      stop_cv_.wait_for(lock, std::chrono::seconds(config_.heartbeat_seconds));
    }
  }

  // Writes both sides of the channel to the heartbeat row, and logs a side that turned
  // half-dead (or recovered) as `gantry status` would judge it.
  void beat() {
    auto sides = watch_.sides();
    heartbeat_->beat(sides.last_receive_ok_at, sides.send_failing_since, sides.send_error);
    auto row = heartbeat_->read();
    if (!row.isOk() || !row->has_value()) return;
    const int64_t now = store::nowMs();
    const store::Heartbeat& written = *row.value();
    auto verdict = health::channelVerdict(written, now);
    health::logVerdictChange(verdict_, verdict, written, now);
    verdict_ = verdict;
    chat_->redeliverRefused();
  }

  // RECORD_KEEP_DAYS: at boot, then once a day on the heartbeat thread (no wakeups of its own).
  void pruneIfDue() {
    constexpr int64_t kDayMs = 86400000;
    const int64_t now = store::nowMs();
    if (config_.record_keep_days == 0 || now - last_prune_ms_ < kDayMs) return;
    last_prune_ms_ = now;
    auto pruned = store::pruneRecord(*store_, now - config_.record_keep_days * kDayMs);
    if (!pruned.isOk())
      return log::warn("record_prune_failed", {{"error", pruned.status().message()}});
    log::info("record_pruned", {{"messages", std::to_string(pruned->messages)},
                                {"tool_calls", std::to_string(pruned->tool_calls)},
                                {"usage", std::to_string(pruned->usage)},
                                {"inbox", std::to_string(pruned->inbox)},
                                {"outbox", std::to_string(pruned->outbox)},
                                {"turns", std::to_string(pruned->turns)},
                                {"repairs", std::to_string(pruned->repairs)},
                                {"approvals", std::to_string(pruned->approvals)}});
  }

  void requestStop() {
    log::info("stopping", {});
    {
      std::lock_guard lock(stop_mutex_);
      stopping_ = true;
    }
    stop_cv_.notify_all();
    channel_->stop();
  }

  void reloadPersona() {
    auto persona = persona::load(config_.persona_dir);
    if (!persona.isOk()) {
      log::error("persona_reload_failed", {{"error", persona.status().message()}});
      return;
    }
    agent_->setPersona(persona->text);
    if (consolidator_) consolidator_->setPersona(persona->user);
    if (persona_conflicts_) persona_conflicts_->setPersona(persona->text);
    log::info("persona_reloaded", {{"files", std::to_string(persona->files.size())}});
  }

  int stop() {
    {
      std::lock_guard lock(stop_mutex_);
      stopping_ = true;
    }
    stop_cv_.notify_all();
    // The chat service first: it bounds and then cancels in-flight turns, cron's included,
    // so the scheduler's stop never waits behind a model call.
    if (tasks_) tasks_->shutdown();  // running tasks end cancelled, new ones are refused
    if (api_) api_->stop();          // then the requests waiting on them are answered
    chat_->shutdown(kShutdownBound);
    // What no worker indexed going idle (a turn cancelled at the bound, a recovery notice).
    if (Status s = store::MessageIndex(*store_).catchUp(); !s.isOk()) {
      log::warn("message_index_failed", {{"error", s.message()}});
    }
    if (scheduler_) scheduler_->stop();
    if (poller_) poller_->stop();
    if (consolidator_) consolidator_->stop();
    if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
    heartbeat_->stopped();
    mcp_->shutdown();
    if (!channel_status_.isOk()) {
      log::error("channel_failed", {{"error", channel_status_.message()}});
      std::cerr << "gantry: " << log::redact(channel_status_.message()) << "\n";
      return 1;
    }
    log::info("stopped", {});
    return turnsFailed() ? 1 : 0;
  }

  // A piped run tells a script whether every line got its reply; a chat daemon's stop is
  // not a verdict on the turns before it.
  bool turnsFailed() const {
    const int failed = chat_->failedTurns();
    if (!channel_->caps().ordered_input || failed == 0) return false;
    std::cerr << "gantry: " << failed << (failed == 1 ? " turn" : " turns") << " failed\n";
    return true;
  }

  config::Config config_;
  config::EnvLookup env_;
  config::SecretLookup secrets_;
  std::mutex resolved_mutex_;
  std::map<std::string, std::string> resolved_;  ///< name → value of every reference resolved
  std::shared_ptr<vault::OpenedGeneration> vault_generation_ =
      std::make_shared<vault::OpenedGeneration>(0);
  persona::Persona persona_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<approvals::Approvals> approvals_;
  std::unique_ptr<store::HeartbeatRepo> heartbeat_;
  std::unique_ptr<store::UsageRepo> usage_;
  std::atomic<bool> stopping_{false};
  health::ChannelWatch watch_;
  health::ChannelVerdict verdict_;  ///< as of the last beat (heartbeat thread only)
  std::unique_ptr<CoreHost> channel_host_, provider_host_;
  std::unique_ptr<Provider> module_provider_;
  std::unique_ptr<budget::DailyBudget> budget_;
  std::unique_ptr<Provider> provider_;  ///< module_provider_, recording outcomes
  std::unique_ptr<budget::BudgetGate> budget_gate_;
  std::unique_ptr<Provider> turn_provider_;           ///< provider_ past the daily cap check
  std::unique_ptr<Provider> consolidation_provider_;  ///< the same, for consolidation
  std::unique_ptr<Channel> channel_;
  std::unique_ptr<Channel> watched_channel_;  ///< channel_, each send's outcome watched
  std::unique_ptr<Channel> chat_channel_;     ///< watched_channel_, every outbound text redacted
  std::unique_ptr<ErrorReporter> reporter_;
  std::unique_ptr<mcp::McpHost> mcp_;
  std::unique_ptr<store::MemoryRepo> memory_repo_;
  std::unique_ptr<memory::PersonaConflicts> persona_conflicts_;  ///< with memory_repo_
  std::unique_ptr<tools::ToolSource> memory_tools_;
  std::optional<cron::Zone> zone_;
  std::unique_ptr<cron::Scheduler> scheduler_;  ///< stopped in stop(); outlives cron_tools_' hook
  std::unique_ptr<cron::CronTools> cron_tools_;
  std::unique_ptr<watch::Poller> poller_;  ///< stopped in stop(); outlives watch_tools_' hook
  std::unique_ptr<watch::WatchTools> watch_tools_;
  tools::Catalog catalog_;
  std::unique_ptr<tools::Publication> publication_;
  std::unique_ptr<tools::McpEnableTool> enable_tool_;
  std::unique_ptr<agent::Agent> agent_;
  std::unique_ptr<chat::ChatService> chat_;
  std::unique_ptr<api::TaskService> tasks_;
  std::unique_ptr<api::ApiServer> api_;
  std::unique_ptr<memory::Consolidator> consolidator_;
  std::thread heartbeat_thread_;
  int64_t last_prune_ms_ = 0;
  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  Status channel_status_;
  int64_t started_ = store::nowMs();
  std::string log_file_;  ///< the REPL's log file on a terminal; "" when logs go to stderr
  std::atomic<bool> restart_{false};
  std::atomic<bool> booting_{true};  ///< until boot() is done; a stop signal then exits at once
  /// Last, so it is destroyed first: no signal callback runs into a member being torn down.
  std::unique_ptr<SignalThread> signals_;
};

}  // namespace

int runDaemon() {
  // One malloc arena for every thread: the threads of an instance are few and mostly
  // waiting, and each arena of its own kept its freed memory dirty.
  mallopt(M_ARENA_MAX, 1);
  // The heap is trimmed when a chat goes idle (malloc_trim), not whenever its top is free
  // during a turn: glibc's own trimming gave back pages that the next allocations faulted in
  // again, which showed in bench_host's CPU a turn with the packaged unit's
  // glibc.malloc.tcache_count=0.
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  blockSignals();
  log::holdRecords();  // a failed boot prints its one line only (released once booted)
  try {
    {
      Daemon daemon;
      int code = daemon.run();
      if (code != 0 || !daemon.restartRequested()) return code;
    }  // everything closed (database, servers, sockets) before the new image starts
    return reexecSelf();
  } catch (const BootError& e) {
    // What led up to it, for LOG_LEVEL=debug only.
    log::level() == LogLevel::kDebug ? log::releaseHeld() : log::dropHeld();
    std::cerr << "gantry: " << log::redact(e.message) << "\n";
    return 1;
  } catch (...) {
    log::releaseHeld();
    throw;
  }
}

}  // namespace gantry::app
