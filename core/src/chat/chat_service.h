#pragma once
/// ChatService: the channel-independent chat experience (DESIGN 4.3), implemented once for
/// every channel — one worker per chat taking its events in order (chat/chat_worker.h),
/// multi-bubble coalescing, slash commands, streaming replies, photos, scheduled (cron) turns.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "agent/agent.h"
#include "approvals/approvals.h"
#include "chat/approval_follow_up.h"
#include "chat/chat_events.h"
#include "chat/reply_stream.h"
#include "chat/settle_clock.h"
#include "chat/typing_pulses.h"
#include "gantry/channel.h"
#include "store/inbox_repo.h"
#include "store/message_index.h"
#include "store/message_repo.h"
#include "store/outbox_repo.h"
#include "store/turn_repo.h"

namespace gantry::chat {

/// Something to tell the owner before their next turn; told() is called once text was sent.
struct OwnerNote {
  std::string text;  ///< "" for nothing
  std::function<void()> told;
};

struct ChatOptions {
  StreamOptions stream;
  /// Asked before each turn of the owner's (not scheduled ones), on the chat's worker; unset
  /// tells nothing (the persona's conflicts with memory, memory/persona_conflicts.h).
  std::function<OwnerNote()> owner_note;
  /// Asked before each turn of the owner's, on the chat's worker: "" runs it; a line is sent
  /// instead, with no model call, and the message is marked handled (the daily token cap,
  /// budget/budget_gate.h). Unset: every turn runs.
  std::function<std::string()> owner_gate;
  /// Commands answered from the whole message ("/budget +N"), keyed with their slash; on the
  /// same threads as CommandTexts.
  std::map<std::string, std::function<std::string(const InboundMessage&)>> commands;
  int coalesce_settle_ms = 2000;  ///< 0 = off: every message is its own turn
  /// What the settle time is measured by; not owned, outlives the service.
  SettleClock* settle_clock = &steadySettleClock();
};

/// The reply to a command that only reports (/status, /tools, /tokens, /perf, /toolstats,
/// /memstats), supplied by the application; called on the channel's receive thread, or on
/// the chat's worker when input is ordered (the command then takes its turn).
using CommandText = std::function<std::string(const std::string& chat_id)>;
/// Keyed by the command with its slash ("/perf"). A command of slashCommands() missing here
/// answers that it is not available.
using CommandTexts = std::map<std::string, CommandText>;

class ChatService final : public InboundSink {
 public:
  /// approvals (not owned, may be null: /approve and /deny then say so) is decided from the
  /// chat; its parked approvals continue in their chats once settled.
  ChatService(agent::Agent& agent, Channel& channel, store::Store& store, ChatOptions options,
              CommandTexts texts, approvals::Approvals* approvals = nullptr);
  ~ChatService() override;
  ChatService(const ChatService&) = delete;
  ChatService& operator=(const ChatService&) = delete;

  /// Called on the channel's receive thread.
  void onMessage(InboundMessage message) noexcept override;
  /// Called on the channel's receive thread: a chat's messages received together are queued
  /// together, so where bubbles join they are one turn.
  void onMessages(std::vector<InboundMessage> messages) noexcept override;

  /// Runs prompt as a turn on chat_id (not coalesced, serialised with the chat's turns) and
  /// pushes the reply to the chat. Blocks until the turn ends; returns the reply or error
  /// (refusedAtShutdown() when the turn never started because the service is stopping).
  Result<std::string> runScheduled(const std::string& chat_id, const std::string& prompt);
  static constexpr const char* kShuttingDown = "shutting down";
  /// The status of a scheduled turn refused before it started, the service stopping.
  static Status refusedAtShutdown() { return Status::cancelled(kShuttingDown); }
  static bool isRefusedAtShutdown(const Status& s) {
    return s.isCancelled() && s.message() == kShuttingDown;
  }

  /// Answers, once, what a crash or kill left unanswered (call at start, before the channel
  /// runs): sends replies recorded but not delivered, continues turns left open (one
  /// interrupted again while continued gets a notice instead), then queues messages received
  /// but never recorded. Only for channels whose input survives a restart
  /// (caps().replays_inbox); for the others (a terminal, a pipe) all of it is closed without
  /// output, because the reader it was meant for has gone and this run's output answers this
  /// run's input. Then the approvals decided while the process was down continue their turns.
  void recoverAfterRestart();

  /// Queues, on each chat's worker, another send of the replies the channel refused while
  /// running (a no-op for chats without any). Called by the heartbeat, once per period.
  void redeliverRefused();

  /// Blocks until every queued message has had its turn (pipe end of input).
  void drain();
  /// How many turns ended with an error (not a cancel) since start: a piped run's exit code.
  int failedTurns() const { return failed_turns_.load(); }
  /// Stops taking messages, lets in-flight turns finish for up to bound, then cancels them.
  void shutdown(std::chrono::milliseconds bound);

 private:
  class Worker;
  Worker& worker(const std::string& chat_id);
  void hand(std::vector<ChatEvent>& events, const std::string& chat_id);
  Bubbles recorded(InboundMessage message);
  std::string commandOf(const InboundMessage& message) const;
  bool knownCommand(const std::string& cmd) const;
  std::string showApproval(const InboundMessage& m, const std::string& text);
  bool answeredAtOnce(const std::string& cmd) const;
  /// Answers command cmd of m; any thread (a chat's worker on ordered input).
  void answer(const InboundMessage& m, const std::string& cmd);
  void cancel(const std::string& chat_id);
  std::string reply(const InboundMessage& m, const std::string& cmd);
  /// text: the message's text, trimmed.
  std::string decide(const InboundMessage& message, const std::string& text, bool approve);
  void clearSession(const std::string& chat_id);
  /// Bubbles arriving during a turn interrupt it and are joined (not on ordered input, and
  /// not with COALESCE_SETTLE_MS=0).
  bool joinsBubbles() const;
  void followUp(const store::ApprovalRow& approval);
  void stopFollowUp();
  /// A message the inbox already holds (a channel handing it over again after a restart).
  bool handedOverAgain(const InboundMessage& message);
  void replayInbox(bool replay);
  bool allIdle();  ///< with mutex_ held

  agent::Agent& agent_;
  Channel& channel_;
  /// Only for a channel that shows typing; before workers_: their turns use it.
  std::optional<TypingPulses> typing_;
  store::Store& store_;
  store::MessageRepo messages_;
  store::InboxRepo inbox_;
  store::OutboxRepo outbox_;
  store::TurnRepo turns_;
  store::MessageIndex message_index_;              ///< stepped by workers going idle
  std::atomic<bool> message_index_failed_{false};  ///< its failure was logged once
  ChatOptions options_;
  CommandTexts texts_;
  ChannelCaps caps_;
  std::mutex mutex_;
  std::condition_variable cv_idle_;  ///< signalled when a worker finishes a job
  std::map<std::string, std::unique_ptr<Worker>> workers_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> first_turn_{true};
  std::atomic<int> failed_turns_{0};
  approvals::Approvals* approvals_;
  std::unique_ptr<ApprovalFollowUp> follow_up_;  ///< last: its thread uses the members above
};

}  // namespace gantry::chat
