#include "agent/tool_runner.h"

#include <chrono>
#include <map>
#include <thread>

#include "gantry/text/split.h"
#include "log/log.h"

namespace gantry::agent {
namespace {

using Clock = std::chrono::steady_clock;

bool isJsonObject(const std::string& text) {
  auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{';
}

std::string unknownToolText(const std::string& name, const std::vector<std::string>& candidates) {
  std::string text = "error: there is no tool named \"" + name + "\".";
  if (!candidates.empty()) {
    text += " Did you mean one of: ";
    for (std::size_t i = 0; i < candidates.size(); ++i) text += (i ? ", " : "") + candidates[i];
    text += "?";
  }
  return text + " Call one of the tools you were given, with its exact name.";
}

/// Refuses calls the owner's policy (the tool source's) does not allow. Approvals for `ask`
/// are not available in this version, so such calls are refused with a message saying so.
Status checkPolicy(const tools::ToolSource& source, const std::string& name) {
  tools::Policy policy = source.policy(name);
  if (policy == tools::Policy::kDeny) {
    return Status::error("error: the owner's policy denies the tool " + name +
                         "; do not call it again, and tell the user it is not allowed.");
  }
  if (policy == tools::Policy::kAsk) {
    return Status::error("error: the tool " + name +
                         " needs the owner's approval, which this gantry cannot ask for yet; "
                         "it was not run. Tell the user.");
  }
  return Status::ok();
}

/// Resolves and runs one call; fills everything but timing.
void runOne(CallOutcome& out, const tools::Resolution& resolution, const std::string& chat_id,
            const CancelToken& cancel, const RunnerOptions& options) {
  if (!resolution.source) {
    out.candidates = resolution.candidates;
    out.result = unknownToolText(out.call.name, resolution.candidates);
    return;
  }
  out.call.name = resolution.name;
  if (Status refused = checkPolicy(*resolution.source, out.call.name); !refused.isOk()) {
    out.result = refused.message();
    return;
  }
  std::string args = out.call.arguments.empty() ? "{}" : out.call.arguments;
  // The model only ever sees a secret as its marker; written into a real file or request,
  // the marker would replace the value. Such a call is never run.
  if (args.find("[redacted:") != std::string::npos) {
    out.result = "error: the arguments for " + out.call.name +
                 " contain a [redacted:…] marker, which stands for a secret you cannot see; the "
                 "call was not run. Ask the user instead of passing the marker on.";
    return;
  }
  if (!isJsonObject(args)) {
    out.result = "error: the arguments for " + out.call.name +
                 " are not a JSON object; send the arguments as a JSON object matching the "
                 "tool's schema.";
    return;
  }
  tools::CallContext context{chat_id, &cancel, std::chrono::seconds(options.timeout_seconds)};
  auto result = resolution.source->call(out.call.name, args, context);
  out.ok = result.ok;
  // Redacted before the result is recorded or shown to the model: a tool that echoes a
  // secret must not put it into the transcript.
  const auto text = log::redact(result.text);
  out.full_chars = text.size();
  out.result = truncateResult(text, options.result_max_chars);
}

void timedRun(CallOutcome& out, const tools::Resolution& resolution, const std::string& chat_id,
              const CancelToken& cancel, const RunnerOptions& options, TurnObserver& observer) {
  auto start = Clock::now();
  observer.onToolStart(out.call.name);
  if (cancel.cancelled()) {
    out.result = "error: cancelled before it ran";
  } else {
    runOne(out, resolution, chat_id, cancel, options);
  }
  out.dur_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  if (out.full_chars == 0) out.full_chars = out.result.size();
  log::info("tool_call", {{"name", out.call.name},
                          {"ok", out.ok ? "true" : "false"},
                          {"dur_ms", std::to_string(out.dur_ms)},
                          {"result_chars", std::to_string(out.full_chars)}});
  observer.onToolEnd(out.call.name, out.ok, out.dur_ms, out.full_chars);
}

}  // namespace

std::string truncateResult(const std::string& text, std::size_t max_chars) {
  if (text.size() <= max_chars) return text;
  std::size_t keep = text::utf8Prefix(text, max_chars);
  return text.substr(0, keep) + "\n[truncated: " + std::to_string(keep) + " of " +
         std::to_string(text.size()) + " chars shown]";
}

std::vector<CallOutcome> runRound(const std::vector<ToolCall>& calls, tools::Catalog& catalog,
                                  const std::string& chat_id, const CancelToken& cancel,
                                  const RunnerOptions& options, TurnObserver& observer) {
  std::vector<CallOutcome> outcomes(calls.size());
  std::vector<tools::Resolution> resolutions(calls.size());
  // Calls to one serialized source run in order on one thread; other calls in parallel.
  std::map<const void*, std::vector<std::size_t>> lanes;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    outcomes[i].call = calls[i];
    resolutions[i] = catalog.resolve(calls[i].name);
    const auto* source = resolutions[i].source;
    const void* lane = source && source->serialized() ? static_cast<const void*>(source)
                                                      : static_cast<const void*>(&outcomes[i]);
    lanes[lane].push_back(i);
  }
  std::vector<std::thread> threads;
  threads.reserve(lanes.size());
  for (auto& [lane, indices] : lanes) {
    threads.emplace_back([&, idx = indices] {
      for (std::size_t i : idx) {
        timedRun(outcomes[i], resolutions[i], chat_id, cancel, options, observer);
      }
    });
  }
  for (auto& t : threads) t.join();
  return outcomes;
}

}  // namespace gantry::agent
