#pragma once
/// Consolidation (DESIGN 6, MEMORY_CONSOLIDATE_MINUTES): a periodic, bounded, skippable pass
/// in which the same model reads unconsolidated episodes and recent session summaries and
/// proposes durable rows. Runs on its own thread, never on the turn path.
///
/// The model replies with one JSON object (the schema is spelled out in its instructions):
///
///     {"memories":  [{"kind": "fact|preference|person|insight", "subject": "…",
///                     "content": "…", "confidence": 0.8, "supersedes": [12, 14]}],
///      "conflicts": [{"subject": "…", "content": "…", "persona_excerpt": "…",
///                     "memory_id": 12}]}
///
/// - memories become rows with source=consolidation; exact duplicates of an active row are
///   not written again; ids in "supersedes" (only ids shown to the model) are linked to the
///   new row through superseded_by, never deleted;
/// - conflicts (contradictions with the persona, which wins) go to memory_conflicts for the
///   human and are never written as memories; the persona itself is never changed. One whose
///   memory_id is a row shown to the model and whose excerpt is found in the persona names
///   that row and keeps the whole persona line it contradicts: the row is then withheld from
///   the prompt and the owner told (memory/persona_conflicts.h);
/// - a reply that is not such a JSON object writes nothing and is logged; the episodes stay
///   unconsolidated for the next pass.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gantry/cancel.h"
#include "gantry/message.h"
#include "gantry/provider.h"
#include "gantry/status.h"
#include "store/memory_repo.h"
#include "store/session_repo.h"
#include "store/store.h"

namespace gantry::memory {

/// Tunables of a pass.
struct ConsolidatorOptions {
  std::chrono::minutes period{30};       ///< MEMORY_CONSOLIDATE_MINUTES; 0 = off
  int max_episodes = 40;                 ///< episodes read per pass
  int max_summaries = 3;                 ///< session summaries read per pass
  int max_existing = 40;                 ///< active memories shown for de-duplication
  std::size_t max_input_chars = 16000;   ///< the whole request, persona included
  std::size_t max_persona_chars = 6000;  ///< persona excerpt sent for conflict checks
};

/// What one pass did.
struct ConsolidationReport {
  bool skipped = false;  ///< nothing to read
  int episodes = 0;      ///< episodes read (and marked consolidated)
  int summaries = 0;     ///< summaries read
  int written = 0;       ///< rows inserted
  int duplicates = 0;    ///< proposals equal to an active row, not written
  int superseded = 0;    ///< existing rows linked to a new row
  int conflicts = 0;     ///< contradictions recorded
  int purged = 0;        ///< expired rows deleted
};

/// The parsed proposals of one reply.
struct Proposal {
  struct Memory {
    std::string kind, subject, content;
    double confidence = 0.8;
    std::vector<int64_t> supersedes;
  };
  struct Conflict {
    std::string subject, content, persona_excerpt;
    int64_t memory_id = 0;  ///< the shown row that holds it; 0: none
  };
  std::vector<Memory> memories;
  std::vector<Conflict> conflicts;
};

/// Parses a model reply (the JSON object may be wrapped in prose or a ``` fence). Entries
/// with an unknown kind or empty text are skipped; anything but the documented object is an
/// error.
Result<Proposal> parseProposal(const std::string& reply);

/// What a pass reads; consolidationRequest() reports which episodes fit in the request.
struct ConsolidationInput {
  std::string persona;
  std::vector<store::MemoryRow> existing;
  std::vector<store::MemoryRow> episodes;
  std::vector<store::SessionSummary> summaries;
};

/// Owns the consolidation thread. The store and provider must outlive it.
class Consolidator {
 public:
  Consolidator(store::Store& store, Provider& provider, std::string persona,
               ConsolidatorOptions options = {});
  /// Stops the thread (cancelling a pass in flight).
  ~Consolidator();
  Consolidator(const Consolidator&) = delete;
  Consolidator& operator=(const Consolidator&) = delete;

  /// Starts the periodic thread; the first pass runs one period after start. A no-op when
  /// the period is 0 or the thread runs already.
  void start();
  /// Stops the thread and waits for it; idempotent.
  void stop();
  /// Replaces the persona text (SIGHUP reload). Thread-safe.
  void setPersona(std::string persona);

  /// Runs one pass on the calling thread: purge expired rows, read a bounded batch, ask the
  /// model, apply its proposals. Errors (store, model, malformed reply) are returned and
  /// leave the batch unconsolidated.
  Result<ConsolidationReport> runOnce(const CancelToken& cancel);

 private:
  void loop();
  std::string persona();
  Result<ConsolidationInput> readInput(int64_t since_ms, int64_t now_ms);
  Result<Proposal> ask(const std::vector<ChatMessage>& messages, const CancelToken& cancel);

  store::Store& store_;
  Provider& provider_;
  ConsolidatorOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string persona_;
  bool stopping_ = false;
  std::unique_ptr<CancelToken> cancel_;
  std::thread thread_;
};

}  // namespace gantry::memory
