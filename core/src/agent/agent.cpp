#include "agent/agent.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_set>

#include "agent/prompt.h"
#include "agent/reply_gate.h"
#include "log/log.h"
#include "session/history_bounds.h"
#include "store/approval_repo.h"
#include "store/message_repo.h"
#include "store/prompt_budget_repo.h"
#include "store/session_repo.h"
#include "tools/call_schema.h"
#include "tools/hardening.h"
#include "tools/naming.h"

namespace gantry::agent {
namespace {

using Clock = std::chrono::steady_clock;

int64_t msSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

std::string generatedId(int round, std::size_t index) {
  return "call_g" + std::to_string(round) + "_" + std::to_string(index);
}

}  // namespace

/// The state of one running turn; each step is a small method.
class Agent::Turn {
 public:
  Turn(Agent& agent, const TurnRequest& request, TurnObserver& observer, const CancelToken& cancel)
      : a_(agent),
        request_(request),
        observer_(observer),
        cancel_(cancel),
        conversation_(agent.store_, agent.folds_.get(), agent.options_.conversation) {
    // The tool rounds stop at a cancel and at a wrap-up; the last call only at a cancel.
    auto stop_steps = [steps = steps_cancel_] { steps->cancel(); };
    cancel_subscription_ = cancel_.subscribe(stop_steps);
    if (request_.wrap_up) wrap_up_subscription_ = request_.wrap_up->subscribe(stop_steps);
  }
  ~Turn() {
    cancel_.unsubscribe(cancel_subscription_);
    if (request_.wrap_up) request_.wrap_up->unsubscribe(wrap_up_subscription_);
  }
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;

  TurnResult run() {
    start_ = Clock::now();
    if (Status s = begin(); !s.isOk()) return finish(s);
    if (!awaiting_.empty()) return finishWaiting();  // a continuation's call waits again
    for (int round = 0;; ++round) {
      if (cancel_.cancelled()) return finish(Status::cancelled());
      bool last = round >= maxRounds() || wrappingUp();
      bool tools_on = !last && constrained_.empty();
      auto response = callModel(round, tools_on, last);
      if (!response.isOk()) {
        if (!last && wrappingUp() && !cancel_.cancelled()) continue;  // cut short mid-call
        return finish(response.status());
      }
      ChatMessage message = std::move(response->message);
      // The record keeps what the chat was shown: a secret the model repeats is its marker.
      message.content = log::redact(std::move(message.content));
      message.reasoning = log::redact(std::move(message.reasoning));
      if (!tools_on && !constrained_.empty()) adoptConstrainedCall(message, round);
      if (message.tool_calls.empty() && adoptPrintedCall(message, round)) {
        repairs_.push_back({"printed_call", message.tool_calls.front().name});
      }
      if (message.tool_calls.empty() || last) {
        result_.rounds_exhausted = last;
        result_.wrapped_up = last && wrappingUp();
        return finishWithText(std::move(message), round);
      }
      if (Status s = runTools(std::move(message), round); !s.isOk()) return finish(s);
      if (!awaiting_.empty())
        return cancel_.cancelled() ? finish(Status::cancelled()) : finishWaiting();
    }
  }

 private:
  /// Opens the turn in the record and loads its context; a continuation also runs (or
  /// refuses) the decided call.
  Status begin() {
    bool continuation = !request_.approval_id.empty();
    Status started = request_.resume ? resumeTurn()
                     : continuation  ? openContinuation()
                                     : recordUserMessage();
    if (!started.isOk()) return started;
    if (Status s = loadContext(); !s.isOk()) return s;
    return continuation ? runDecidedCall() : Status::ok();
  }

  /// Memory is hydrated into this turn's messages, so the system message frames it.
  bool memoryFramed() const { return static_cast<bool>(a_.options_.conversation.hydrate); }

  int maxRounds() const { return request_.max_rounds.value_or(a_.options_.tool_max_iterations); }
  bool wrappingUp() const { return request_.wrap_up && request_.wrap_up->cancelled(); }

  /// The user message goes into the record as it will be sent (DESIGN 4 step 2), and its
  /// inbox rows are marked handled in the same transaction.
  Status recordUserMessage() {
    if (Status s = conversation_.open(request_.chat_id); !s.isOk()) return s;
    result_.session_id = conversation_.sessionId();
    auto id = conversation_.recordUser(request_.text, request_.images, request_.inbox_ids,
                                       request_.track);
    if (!id.isOk()) return id.status();
    result_.user_message_id = id.value();
    opened_ = request_.track;
    return Status::ok();
  }

  /// A continuation opens a turn of its own (no message: it answers the parked one), so a
  /// crash during it is continued like any other turn.
  Status openContinuation() {
    if (Status s = conversation_.open(request_.chat_id); !s.isOk()) return s;
    result_.session_id = conversation_.sessionId();
    if (Status s = conversation_.openContinuation(); !s.isOk()) return s;
    opened_ = true;
    return Status::ok();
  }

  /// A turn a crash cut short continues from its record: the model sees the message, or the
  /// results so far (an interrupted call says so); no call is run again.
  Status resumeTurn() {
    if (Status s = conversation_.open(request_.chat_id); !s.isOk()) return s;
    result_.session_id = conversation_.sessionId();
    auto id = conversation_.resume();
    if (!id.isOk()) return id.status();
    result_.user_message_id = id.value();
    opened_ = true;
    log::warn("turn_resumed",
              {{"chat", request_.chat_id}, {"message_id", std::to_string(id.value())}});
    return Status::ok();
  }

  Status loadContext() {
    persona_ = a_.persona();
    if (a_.publication_) {
      a_.publication_->beginTurn(request_.chat_id);
      listing_ = a_.publication_->listingBlock();
    }
    system_ = systemMessage(persona_, listing_, conversation_.summary(),
                            {memoryFramed(), request_.scheduled});
    return conversation_.bound();
  }

  /// The last call runs until a cancel only, so a wrap-up still gets its reply.
  Result<ChatResponse> callModel(int round, bool tools_on, bool last) {
    auto schemas = publishedSchemas();
    ChatRequest request;
    request.system = &system_;
    request.messages = &conversation_.history();
    if (tools_on) request.tools = schemas;
    request.response_schema_json = tools_on ? "" : constrainedSchema();
    if (!request.response_schema_json.empty()) repairs_.push_back({"constrained_retry", {}});
    request.stream = a_.options_.stream;
    if (last) request.max_tokens = request_.final_max_tokens;
    PromptPrint print = promptPrint(request);
    sent_tokens_ += printTokens(print);
    cached_tokens_ += a_.notePrompt(request_.chat_id, std::move(print));
    gate_.emplace([this](std::string_view text) { observer_.onText(text); });
    StreamCallbacks callbacks;
    callbacks.on_text = [this](std::string_view text) { gate_->push(text); };
    callbacks.on_reasoning = [this](std::string_view text) { observer_.onReasoning(text); };
    observer_.onModelCall(round);
    const CancelToken& token = last ? cancel_ : *steps_cancel_;
    auto response = a_.provider_.chat(request, request.stream ? &callbacks : nullptr, token);
    ++result_.model_calls;
    logModelCall(response, tools_on ? schemas->size() : 0);
    if (response.isOk()) {
      if (result_.model_calls == 1) first_token_ms_ = response->first_token_ms;
      model_ms_ += response->dur_ms;
      usage_.prompt_tokens += response->usage.prompt_tokens;
      usage_.completion_tokens += response->usage.completion_tokens;
    }
    return response;
  }

  /// Read again for every call: a server enabled in this turn joins from the next call on.
  ToolList publishedSchemas() const {
    return a_.publication_ ? a_.publication_->schemas(request_.chat_id) : a_.catalog_.schemas();
  }

  /// The candidates' published schemas, so the retry keeps their parameters in view.
  std::string constrainedSchema() const {
    if (constrained_.empty()) return {};
    std::vector<ToolSchema> candidates;
    const ToolList published = publishedSchemas();
    auto named = [](const std::vector<ToolSchema>& list, const std::string& name) {
      return std::find_if(list.begin(), list.end(),
                          [&](const ToolSchema& s) { return s.name == name; });
    };
    for (const auto& name : constrained_) {
      if (named(candidates, name) != candidates.end()) continue;  // an enum lists each once
      auto it = named(*published, name);
      candidates.push_back(it != published->end() ? *it : ToolSchema{name, {}, {}});
    }
    return tools::toolCallSchema(candidates);
  }

  void logModelCall(const Result<ChatResponse>& r, std::size_t tool_schemas) {
    const int prompt_tokens =
        session::estimateTokens(system_) + session::estimateTokens(conversation_.history());
    LogFields fields = {{"prompt_est_tokens", std::to_string(prompt_tokens)},
                        {"tool_schemas", std::to_string(tool_schemas)}};
    if (r.isOk()) {
      fields.push_back({"first_token_ms", std::to_string(r->first_token_ms)});
      fields.push_back({"dur_ms", std::to_string(r->dur_ms)});
      fields.push_back({"attempts", std::to_string(r->attempts)});
      fields.push_back({"finish_reason", r->finish_reason});
    } else {
      fields.push_back({"error", r.status().message()});
    }
    log::info("model_call", fields);
  }

  /// After a grammar-constrained retry the reply is {"name":…, "arguments":{…}} as text.
  /// Nulls in its arguments stand for optional parameters left out (tools::strictSchema).
  void adoptConstrainedCall(ChatMessage& message, int round) {
    constrained_.clear();
    if (message.tool_calls.empty()) adoptPrintedCall(message, round);
    for (auto& call : message.tool_calls) call.arguments = tools::withoutNulls(call.arguments);
  }

  /// A tool call written as text runs as a real call when its name resolves. True when it
  /// was adopted.
  bool adoptPrintedCall(ChatMessage& message, int round) {
    auto call = tools::parsePrintedCall(message.content);
    if (!call || !a_.catalog_.resolve(call->name).source) {
      gate_->release();
      return false;
    }
    log::info("printed_tool_call", {{"name", call->name}});
    call->id = generatedId(round, 0);
    message.tool_calls.push_back(*call);
    message.content.clear();
    gate_->discard();
    observer_.onTextDiscarded();
    return true;
  }

  /// A continuation's first step: the parked call, as it was asked for, recorded as a new
  /// call of this turn and run under its approval (claimed, so it runs once) or refused.
  Status runDecidedCall() {
    auto row = store::ApprovalRepo(a_.store_).find(request_.approval_id);
    if (!row.isOk()) return row.status();
    if (!row->has_value()) return Status::error("approval " + request_.approval_id + " is gone");
    const store::ApprovalRow& approval = *row.value();
    ChatMessage message;
    message.role = Role::kAssistant;
    std::string call_id = "call_a_" + approval.id;
    message.tool_calls.push_back({call_id, approval.tool, approval.arguments, {}});
    return runTools(std::move(message), 0, {{call_id, approval.id}});
  }

  Status runTools(ChatMessage message, int round, std::map<std::string, std::string> decided = {}) {
    for (std::size_t i = 0; i < message.tool_calls.size(); ++i) {
      if (message.tool_calls[i].id.empty()) message.tool_calls[i].id = generatedId(round, i);
    }
    if (gate_ && gate_->emitted()) observer_.onTextDiscarded();  // none yet in a continuation
    // The assistant message and one running row per call, before anything runs.
    auto rows = conversation_.recordCalls(message);
    if (!rows.isOk()) return rows.status();
    result_.progressed = true;
    auto tool_start = Clock::now();
    Round context{a_.catalog_, request_.chat_id, *steps_cancel_,     a_.options_.runner,
                  observer_,   a_.approvals_,    std::move(decided), a_.publication_};
    auto outcomes = runRound(message.tool_calls, context);
    tool_ms_ += msSince(tool_start);
    result_.tool_calls += static_cast<int>(outcomes.size());
    return recordResults(outcomes, rows.value());
  }

  Status recordResults(const std::vector<CallOutcome>& outcomes, const std::vector<int64_t>& rows) {
    constrained_.clear();
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      const auto& o = outcomes[i];
      store::CallCost cost{o.tool, o.dur_ms, static_cast<int64_t>(o.full_chars)};
      if (Status s = conversation_.recordResult(rows[i], o.call, o.ok, o.result, cost, o.decision,
                                                o.images);
          !s.isOk()) {
        return s;
      }
      noteRepairs(o);
      for (const auto& c : o.candidates) constrained_.push_back(c);
      if (o.awaiting_approval) awaiting_.push_back(o);
    }
    conversation_.collapseIfPastBounds();
    return Status::ok();
  }

  /// What the host had to repair in one call (DESIGN 4.1), kept for /toolstats.
  void noteRepairs(const CallOutcome& o) {
    if (o.tool.empty()) repairs_.push_back({"unknown_tool", o.call.name});
    if (o.name_repaired) repairs_.push_back({"name_repaired", o.tool});
    if (o.enabled_by_call) repairs_.push_back({"server_enabled_by_call", o.tool});
  }

  TurnResult finishWithText(ChatMessage message, int round) {
    message.tool_calls.clear();
    if (message.content.empty() && !message.reasoning.empty() && round > 0) {
      log::info("think_stall_promoted",
                {{"reasoning_chars", std::to_string(message.reasoning.size())}});
      message.content = message.reasoning;
      observer_.onText(message.content);
      repairs_.push_back({"think_promoted", {}});
    }
    if (message.content.empty()) {
      message.content = result_.rounds_exhausted ? "(stopped after " + std::to_string(round) +
                                                       " tool rounds without a final answer)"
                                                 : "(the model returned an empty reply)";
      observer_.onText(message.content);
    }
    result_.reply = message.content;
    auto outbox = recordReply(message);
    if (!outbox.isOk()) return finish(outbox.status());
    result_.outbox_id = outbox.value();
    opened_ = false;
    result_.progressed = true;
    return finish(Status::ok());
  }

  /// A call waits for the owner: the turn ends here, saying what it waits for (no model call
  /// could do more, and the owner's answer continues it).
  TurnResult finishWaiting() {
    ChatMessage message;
    message.role = Role::kAssistant;
    for (const auto& o : awaiting_) {
      if (!message.content.empty()) message.content += "\n";
      message.content += "⏸ Waiting for your approval to run " + o.call.name + ": /approve " +
                         o.decision.approval_id + " or /deny " + o.decision.approval_id +
                         ". I will go on once you decide.";
    }
    observer_.onText(message.content);
    result_.reply = message.content;
    auto outbox = recordReply(message);
    if (!outbox.isOk()) return finish(outbox.status());
    result_.outbox_id = outbox.value();
    opened_ = false;
    return finish(Status::ok());
  }

  /// The reply, and with it the turn's cost and standing prompt: one transaction, since they
  /// belong together. finish() records the cost itself
  /// when this failed.
  Result<int64_t> recordReply(const ChatMessage& message) {
    const store::TurnCost cost = turnCost("ok", msSince(start_));
    const auto standing = standingBudget(&message);
    auto outbox = conversation_.recordReply(message, &cost, standing ? &*standing : nullptr);
    cost_recorded_ = outbox.isOk();
    return outbox;
  }

  /// A turn that ends without a reply closes in the record: a failure with the note the
  /// owner is told (queued, so it is delivered even across a crash), a cancel as asked.
  void closeUnanswered() {
    if (!opened_ || result_.status.isOk()) return;
    opened_ = false;
    if (!result_.status.isCancelled()) {
      auto outbox = conversation_.closeWithNotice(failureNotice(result_.status));
      if (outbox.isOk()) result_.outbox_id = outbox.value();
      return;
    }
    if (request_.keep_open_if_cancelled && request_.keep_open_if_cancelled()) return;
    conversation_.closeTurn();
  }

  TurnResult finish(Status status) {
    result_.status = std::move(status);
    closeUnanswered();
    if (sent_tokens_ > 0) {
      std::lock_guard lock(a_.prints_mutex_);
      a_.last_turn_cache_[request_.chat_id] = {sent_tokens_, cached_tokens_};
    }
    // The fold runs after the turn, on the folds' thread: the reply does not wait for it.
    if (result_.session_id != 0 && conversation_.foldDue()) {
      a_.folds_->request(result_.session_id);
    }
    int64_t total = msSince(start_);
    std::string outcome = result_.status.isOk()          ? "ok"
                          : result_.status.isCancelled() ? "cancelled"
                                                         : "error";
    log::info("turn", {{"model_ms", std::to_string(model_ms_)},
                       {"tool_ms", std::to_string(tool_ms_)},
                       {"total_ms", std::to_string(total)},
                       {"model_calls", std::to_string(result_.model_calls)},
                       {"tool_calls", std::to_string(result_.tool_calls)},
                       {"outcome", outcome}});
    if (!cost_recorded_) {
      const auto standing = standingBudget();
      conversation_.recordTurn(turnCost(outcome, total), standing ? &*standing : nullptr);
    }
    return result_;
  }

  /// The turn's cost so far (session filled in when it is recorded).
  store::TurnCost turnCost(const std::string& outcome, int64_t total_ms) const {
    return {0,
            store::nowMs() - total_ms,
            model_ms_,
            tool_ms_,
            total_ms,
            usage_.prompt_tokens,
            usage_.completion_tokens,
            outcome,
            first_token_ms_,
            result_.model_calls,
            result_.tool_calls,
            repairs_};
  }

  /// What the chat's next turn starts with, estimated part by part, for `gantry tokens`, once
  /// reply (when given, not in the history yet) is recorded; nullopt for a turn the chat's
  /// record does not follow.
  std::optional<store::StoredBudget> standingBudget(const ChatMessage* reply = nullptr) const {
    if (!request_.track) return std::nullopt;
    PartSize history = historySize(conversation_.history());
    if (reply) {
      ++history.count;
      history.est_tokens += static_cast<std::size_t>(session::estimateTokens(*reply));
    }
    StandingPrompt prompt{persona_,
                          listing_,
                          conversation_.summary(),
                          history,
                          a_.schemaSizes(request_.chat_id),
                          sent_tokens_,
                          cached_tokens_,
                          memoryFramed()};
    return store::StoredBudget{request_.chat_id, store::nowMs(), promptBudget(prompt)};
  }

  Agent& a_;
  const TurnRequest& request_;
  TurnObserver& observer_;
  const CancelToken& cancel_;
  /// Cancelled with cancel_ or request_.wrap_up; shared, so a late callback finds it alive.
  std::shared_ptr<CancelToken> steps_cancel_ = std::make_shared<CancelToken>();
  std::size_t cancel_subscription_ = 0;
  std::size_t wrap_up_subscription_ = 0;
  Clock::time_point start_;
  session::Conversation conversation_;
  std::string persona_;
  std::string listing_;  ///< the lazy tool servers' listing, fixed for the turn
  ChatMessage system_;   ///< sent first in every call of the turn
  TurnResult result_;
  std::optional<ReplyGate> gate_;
  std::vector<std::string> constrained_;
  std::vector<CallOutcome> awaiting_;  ///< calls parked for the owner's decision
  bool opened_ = false;         ///< the turn is open in the record and this turn must close it
  bool cost_recorded_ = false;  ///< recorded with the reply
  int64_t model_ms_ = 0;
  int64_t tool_ms_ = 0;
  int64_t first_token_ms_ = -1;
  std::size_t sent_tokens_ = 0;    ///< estimated, all calls of the turn
  std::size_t cached_tokens_ = 0;  ///< of them, what a prompt cache could keep
  Usage usage_;
  std::vector<store::Repair> repairs_;
};

std::string failureNotice(const Status& status) { return "⚠️ " + status.message(); }

Agent::Agent(Provider& provider, tools::Catalog& catalog, store::Store& store, AgentOptions options,
             approvals::Approvals* approvals, tools::Publication* publication)
    : provider_(provider),
      catalog_(catalog),
      store_(store),
      options_(std::move(options)),
      approvals_(approvals),
      publication_(publication),
      folds_(std::make_unique<session::Folds>(store, provider, options_.conversation.bounds,
                                              options_.conversation.fold)) {}

void Agent::waitForFolds() const { folds_->waitIdle(); }

void Agent::setPersona(std::string text) {
  std::lock_guard lock(persona_mutex_);
  persona_ = std::move(text);
}

std::string Agent::persona() {
  std::lock_guard lock(persona_mutex_);
  return persona_;
}

std::map<std::string, PartSize> Agent::schemaSizes(const std::string& chat_id) const {
  const ToolList published = publication_ ? publication_->schemas(chat_id) : catalog_.schemas();
  const auto& sources = catalog_.sources();
  std::vector<ToolList> lists;
  lists.reserve(sources.size());
  for (const auto* source : sources) lists.push_back(source->tools());
  {
    std::lock_guard lock(sizes_mutex_);
    if (known_sizes_.published == published && known_sizes_.sources == lists) {
      return known_sizes_.sizes;
    }
  }
  std::unordered_set<std::string_view> names;
  for (const auto& schema : *published) names.insert(schema.name);
  std::map<std::string, PartSize> sizes;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    for (const auto& tool : *lists[i]) {
      if (names.count(tool.name) == 0) continue;
      PartSize& size = sizes[sources[i]->server()];
      ++size.count;
      size.est_tokens += tools::estimateTokens(tool.name, tool.description, tool.parameters_json);
    }
  }
  std::lock_guard lock(sizes_mutex_);
  known_sizes_ = {published, std::move(lists), sizes};
  return sizes;
}

std::size_t Agent::notePrompt(const std::string& chat_id, PromptPrint print) {
  std::lock_guard lock(prints_mutex_);
  PromptPrint& last = prints_[chat_id];
  const std::size_t kept = keptTokens(last, print);
  last = std::move(print);
  return kept;
}

StandingPrompt Agent::standingPrompt(const std::string& chat_id) {
  StandingPrompt prompt;
  {
    std::lock_guard lock(prints_mutex_);
    if (auto it = last_turn_cache_.find(chat_id); it != last_turn_cache_.end()) {
      std::tie(prompt.last_turn_sent, prompt.last_turn_cached) = it->second;
    }
  }
  prompt.persona = persona();
  prompt.memory_framing = static_cast<bool>(options_.conversation.hydrate);
  if (publication_) prompt.listing = publication_->listingBlock();
  prompt.schemas = schemaSizes(chat_id);
  store::MessageRepo messages(store_);
  auto session = messages.session(chat_id);
  if (!session.isOk()) return prompt;
  if (auto history = messages.history(session.value()); history.isOk()) {
    prompt.history = historySize(history.value());
  }
  if (auto summary = store::SessionRepo(store_).summary(session.value()); summary.isOk()) {
    prompt.summary = summary.value();
  }
  return prompt;
}

TurnResult Agent::run(const TurnRequest& request, TurnObserver& observer,
                      const CancelToken& cancel) {
  try {
    return Turn(*this, request, observer, cancel).run();
  } catch (const std::exception& e) {
    TurnResult result;
    result.status = Status::error(std::string("internal error: ") + e.what());
    log::error("turn_failed", {{"error", e.what()}});
    return result;
  }
}

}  // namespace gantry::agent
