#include "agent/tool_runner.h"

#include <chrono>
#include <map>
#include <thread>

#include "agent/ask_owner.h"
#include "gantry/text/split.h"
#include "log/log.h"
#include "tools/arguments.h"

namespace gantry::agent {
namespace {

using Clock = std::chrono::steady_clock;

std::string unknownToolText(const std::string& name, const std::vector<std::string>& candidates) {
  std::string text = "error: there is no tool named \"" + name + "\".";
  if (!candidates.empty()) {
    text += " Did you mean one of: ";
    for (std::size_t i = 0; i < candidates.size(); ++i) text += (i ? ", " : "") + candidates[i];
    text += "?";
  }
  return text + " Call one of the tools you were given, with its exact name.";
}

/// Why a call with these arguments is never run, or "" when it may be.
std::string argumentsRefusal(const std::string& name, const std::string& args) {
  if (tools::holdsRedactionMarker(args)) {
    return "error: the arguments for " + name +
           " contain a [redacted:…] marker, which stands for a secret you cannot see; the "
           "call was not run. Ask the user instead of passing the marker on.";
  }
  return {};
}

/// The owner's policy (the tool source's): allow runs, deny refuses, ask runs only on a
/// fresh yes (asked now, or decided before a continuation). False when the call must not run
/// (out.result then says why).
bool permitted(CallOutcome& out, const tools::ToolSource& source, Round& round) {
  tools::Policy policy = source.policy(out.call.name);
  out.decision.policy = tools::policyName(policy);
  if (policy == tools::Policy::kAllow) return true;
  if (policy == tools::Policy::kDeny) {
    out.result = "error: the owner's policy denies the tool " + out.call.name +
                 "; do not call it again, and tell the user it is not allowed.";
    return false;
  }
  if (!round.approvals) {
    out.result = "error: the tool " + out.call.name +
                 " needs the owner's approval, which cannot be asked for here; it was not run.";
    return false;
  }
  approvals::AskedCall asked{round.chat_id, out.call, source.fingerprint(out.call.name)};
  auto decided = round.decided.find(out.call.id);
  AskOutcome ask = decided != round.decided.end()
                       ? claimDecided(*round.approvals, asked, decided->second)
                       : askOwner(*round.approvals, asked, round.options.approval_wait,
                                  round.cancel, round.observer);
  out.decision = ask.decision;
  out.awaiting_approval = ask.waiting;
  if (!ask.run) out.result = ask.refusal;
  return ask.run;
}

/// Resolves and runs one call; fills everything but timing.
void runOne(CallOutcome& out, const tools::Resolution& resolution, Round& round) {
  if (!resolution.source) {
    out.candidates = resolution.candidates;
    out.result = resolution.outage.empty() ? unknownToolText(out.call.name, resolution.candidates)
                                           : "error: " + resolution.outage + ".";
    return;
  }
  out.call.name = resolution.name;
  if (round.publication) {
    out.enabled_by_call = round.publication->noteCall(round.chat_id, *resolution.source);
  }
  if (auto refusal = argumentsRefusal(out.call.name, out.call.arguments); !refusal.empty()) {
    out.result = refusal;
    return;
  }
  // One form from here on: what an approval binds and shows is exactly what the tool gets.
  auto canonical = tools::canonicalArguments(out.call.arguments);
  if (!canonical.isOk()) {
    out.result = "error: " + canonical.status().message() + " (" + out.call.name + " was not run)";
    return;
  }
  out.call.arguments = canonical.value();
  if (!permitted(out, *resolution.source, round)) return;
  tools::CallContext context{round.chat_id, &round.cancel,
                             std::chrono::seconds(round.options.timeout_seconds)};
  auto result = resolution.source->call(out.call.name, out.call.arguments, context);
  out.ok = result.ok;
  // Redacted before the result is recorded or shown to the model: a tool that echoes a
  // secret must not put it into the transcript.
  const auto text = log::redact(result.text);
  out.full_chars = text.size();
  out.result = truncateResult(text, round.options.result_max_chars);
  out.images = std::move(result.images);
}

void timedRun(CallOutcome& out, const tools::Resolution& resolution, Round& round) {
  auto start = Clock::now();
  TurnObserver& observer = round.observer;
  observer.onToolStart(out.call.name);
  if (round.cancel.cancelled()) {
    out.result = "error: cancelled before it ran";
  } else {
    runOne(out, resolution, round);
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

std::vector<CallOutcome> runRound(const std::vector<ToolCall>& calls, Round& round) {
  std::vector<CallOutcome> outcomes(calls.size());
  std::vector<tools::Resolution> resolutions(calls.size());
  // Calls to one serialized source run in order on one thread; other calls in parallel.
  std::map<const void*, std::vector<std::size_t>> lanes;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    outcomes[i].call = calls[i];
    resolutions[i] = round.catalog.resolve(calls[i].name);
    const auto* source = resolutions[i].source;
    if (source) outcomes[i].tool = resolutions[i].name;
    outcomes[i].name_repaired = resolutions[i].repaired;
    const void* lane = source && source->serialized() ? static_cast<const void*>(source)
                                                      : static_cast<const void*>(&outcomes[i]);
    lanes[lane].push_back(i);
  }
  std::vector<std::thread> threads;
  threads.reserve(lanes.size());
  for (auto& [lane, indices] : lanes) {
    threads.emplace_back([&, idx = indices] {
      for (std::size_t i : idx) {
        timedRun(outcomes[i], resolutions[i], round);
      }
    });
  }
  for (auto& t : threads) t.join();
  return outcomes;
}

}  // namespace gantry::agent
