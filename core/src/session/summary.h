#pragma once
/// The rolling per-session summary (DESIGN 4.2): dropped turns are folded into one paragraph
/// by the same model, and injected as a system block on later turns.

#include <chrono>
#include <string>
#include <vector>

#include "gantry/cancel.h"
#include "gantry/message.h"
#include "gantry/provider.h"
#include "gantry/status.h"

namespace gantry::session {

/// Caps of the folding request, so one fold stays a small, bounded call.
struct FoldLimits {
  std::size_t max_input_chars = 12000;   ///< old summary + transcript sent to the model
  std::size_t max_message_chars = 1500;  ///< per dropped message in the transcript
  std::size_t max_summary_chars = 2000;  ///< the paragraph kept (cut on a UTF-8 boundary)
  /// The fold's model call is given up after this long. Well below the systemd unit's
  /// TimeoutStopSec (90 s), so a fold never holds up a stop on its own.
  std::chrono::milliseconds timeout{60000};
};

/// Asks provider (no tools, not streamed) to fold `dropped` into `old_summary`, returning one
/// paragraph of at most ~150 words. The transcript is cut to the limits, newest dropped
/// messages kept in full preference; tool results are abbreviated; user messages show the
/// user's words without the context tail they were sent with. Runs on the calling thread
/// (the turn's, through Conversation::bound) and returns at the latest once cancel is
/// cancelled or limits.timeout has passed. On failure (provider error, cancellation,
/// timeout, an empty reply) returns the Status and the caller keeps old_summary.
Result<std::string> foldSummary(Provider& provider, const std::string& old_summary,
                                const std::vector<ChatMessage>& dropped, const CancelToken& cancel,
                                const FoldLimits& limits = {});

/// The system block that carries the summary into the prompt, or "" for an empty summary:
/// "[summary of earlier conversation]\n<summary>".
std::string summaryBlock(const std::string& summary);

}  // namespace gantry::session
