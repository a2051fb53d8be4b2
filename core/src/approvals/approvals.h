#pragma once
/// Approvals (DESIGN 8): a call to an `ask` tool runs only after the owner's fresh yes, given
/// once, for that exact call. A request is a pending row bound to a digest of the call (the
/// tool's fingerprint: its schema and server entry, and the exact arguments); a decision
/// comes from the chat, the CLI of the same host (another process: waits poll the store) or
/// the local API; running it claims the row, so a yes is spent once and only on that call.
/// Rows are sealed (MACs with a key in the data directory): a request or decision written
/// into the table by anyone but the daemon or the operator's CLI is not obeyed.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "gantry/cancel.h"
#include "gantry/message.h"
#include "store/approval_repo.h"

namespace gantry::approvals {

/// A call the policy says to ask about.
struct AskedCall {
  std::string chat_id;
  ToolCall call;            ///< published name, the model's id, the exact arguments
  std::string fingerprint;  ///< tools::ToolSource::fingerprint of the tool
};

/// The digest an approval is bound to (hex SHA-256 over the fields, length-prefixed).
std::string digestOf(const std::string& fingerprint, const std::string& tool,
                     const std::string& arguments);

/// The key approval rows are sealed with: $DATA_DIR/approvals.key (32 random bytes, 0600),
/// created on first use. Only the daemon and the operator's CLI read it; no MCP server can
/// (the sandbox keeps DATA_DIR from them). Fails naming the file.
Result<std::string> loadSealKey(const std::string& data_dir);

struct ApprovalOptions {
  std::chrono::milliseconds ttl{std::chrono::minutes(15)};
  /// loadSealKey's key; empty: a random key of this object (rows sealed by another process
  /// then fail their seals).
  std::string seal_key;
  /// How often a wait re-reads the store (a decision from another process is seen then).
  std::chrono::milliseconds poll{250};
  std::function<int64_t()> clock = store::nowMs;
};

/// Thread-safe.
class Approvals {
 public:
  explicit Approvals(store::Store& store, ApprovalOptions options = {});

  /// A new pending approval for call, with a short unguessable id.
  Result<store::ApprovalRow> request(const AskedCall& call);

  /// Waits up to `wait` for a decision on id (woken at once by decide() in this process or
  /// by cancel). Returns the row as it is then: approved, denied, expired or still pending.
  Result<store::ApprovalRow> await(const std::string& id, std::chrono::milliseconds wait,
                                   const CancelToken& cancel);

  /// The waiting turn gives up on id: from now on its decision starts a continuation. False
  /// when a decision came first (then the caller acts on it itself).
  Result<bool> park(const std::string& id);

  /// Approves or denies id for `who` (a chat user id, "cli", "api"). chat_id is the chat the
  /// decision comes from, which must be the approval's; empty for the CLI and the API. A
  /// refusal (unknown id, another chat's, expired, already decided or used) is an error
  /// whose message says which.
  Result<store::ApprovalRow> decide(const std::string& id, bool approve, const std::string& who,
                                    const std::string& chat_id);

  /// Claims an approved row to run it now, once. digest is the call's digest as it would run
  /// now; a changed tool or server entry is refused. The error says why it may not run.
  Status claim(const std::string& id, const std::string& digest);

  /// The approval id as the daemon asked for it (a row it never sealed is "not found").
  /// Reads only.
  Result<store::ApprovalRow> show(const std::string& id);

  /// Pending, unexpired approvals, oldest first. Reads only.
  Result<std::vector<store::ApprovalRow>> pending();

  /// Parked approvals that were decided or expired, each handed over exactly once (in this
  /// or any process), for their continuation or notice.
  Result<std::vector<store::ApprovalRow>> takeSettledParked();
  /// True while a parked approval is still pending (its decision may come from the CLI).
  bool anyParkedPending();

  /// At boot: approvals whose turn died with the process are parked.
  Result<int64_t> parkOrphans() { return repo_.parkOrphans(); }

  /// Called (on the deciding thread) after every decision made in this process and every
  /// park, so a follower wakes without polling. Set before use.
  void setOnChange(std::function<void()> on_change);

  int64_t now() const { return options_.clock(); }

 private:
  void changed();
  /// row as its seals allow: a request the daemon never sealed is disowned (expired, never
  /// followed up), a decision nobody sealed is undone (pending again); both are logged.
  store::ApprovalRow vetted(store::ApprovalRow row);

  store::ApprovalRepo repo_;
  ApprovalOptions options_;
  std::mutex mutex_;
  std::condition_variable decided_;  ///< a decision in this process
  std::function<void()> on_change_;
};

/// The chat message asking for a decision: the tool, every argument on its own line
/// (redacted, escaped, a long value cut showing how much was left out) and how to answer.
std::string requestText(const store::ApprovalRow& row);
/// "with {}", or "with:" and one line per argument, values cut past max_value_chars (0: whole).
std::string argumentsText(const store::ApprovalRow& row, std::size_t max_value_chars);
/// A refusal's or outcome's one line for the model's tool result.
std::string waitingText(const store::ApprovalRow& row);

}  // namespace gantry::approvals
