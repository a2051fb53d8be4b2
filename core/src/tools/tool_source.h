#pragma once
/// ToolSource: anything that offers tools to the agent loop — the built-in memory and cron
/// tools, and one per MCP server. The agent loop sees only this interface.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "gantry/cancel.h"
#include "gantry/message.h"

namespace gantry::tools {

/// The outcome of one tool call. ok=false results are still fed back to the model, as
/// tool errors it can correct.
struct ToolResult {
  ToolResult() = default;
  ToolResult(bool succeeded, std::string result_text, std::vector<Image> result_images = {})
      : ok(succeeded), text(std::move(result_text)), images(std::move(result_images)) {}

  bool ok = true;
  std::string text;
  /// Images the tool returned that the model is shown beside the text (a vision model sees
  /// them); the text still describes each.
  std::vector<Image> images;
};

/// The owner's policy for a tool (DESIGN 8): allow, ask (needs an approval), deny.
enum class Policy { kAllow, kAsk, kDeny };

/// "allow" | "ask" | "deny".
inline const char* policyName(Policy policy) {
  switch (policy) {
    case Policy::kAllow: return "allow";
    case Policy::kAsk: return "ask";
    case Policy::kDeny: return "deny";
  }
  return "allow";
}

/// Who is calling and within what: the chat a call belongs to (cron jobs push to it), the
/// turn's cancellation and the call's time limit.
struct CallContext {
  std::string chat_id;
  const CancelToken* cancel = nullptr;        ///< never null when called by the agent loop
  std::chrono::milliseconds timeout{120000};  ///< TOOL_TIMEOUT_SECONDS from the agent loop
};

/// Implementations are thread-safe: calls of one round run concurrently.
class ToolSource {
 public:
  virtual ~ToolSource() = default;

  /// Tools available right now, with their published names (built-ins unprefixed, MCP tools
  /// as {prefix}__{tool}); the same list until they change. A server that is down offers
  /// none.
  virtual ToolList tools() const = 0;

  /// Runs tool `name` (a published name of this source) with raw JSON arguments. Never
  /// throws; failures, timeouts and cancellation come back as ok=false with a clear text.
  virtual ToolResult call(const std::string& name, const std::string& arguments_json,
                          const CallContext& context) = 0;

  /// The MCP server this source is, by its manifest name; "" for the built-ins, which are
  /// always published (lazy publishing enables servers one at a time, tools/publication.h).
  virtual std::string server() const { return {}; }

  /// What this source's published names start with before "__" (an MCP server's prefix);
  /// "" for the built-ins, which have none.
  virtual std::string namePrefix() const { return {}; }

  /// "" while this source's tools can be called. Otherwise (its server is down or not up
  /// yet) what a call to one of them is told instead: "server NAME is down since …; its
  /// tools are unavailable for now". Thread-safe; never throws.
  virtual std::string outage() const { return {}; }

  /// One line saying what the server is for, for the lazy listing in the system prompt;
  /// "" when nothing describes it.
  virtual std::string summary() const { return {}; }

  /// True when calls must run one at a time (a stdio server handles one request per line
  /// in order; concurrent calls to it are queued by the loop).
  virtual bool serialized() const { return false; }

  /// The owner's policy for tool `name` (a published name of this source), checked by the
  /// loop before every call. Built-ins allow everything; an MCP server answers from its
  /// manifest entry. Thread-safe; never throws.
  virtual Policy policy(const std::string& name) const {
    static_cast<void>(name);
    return Policy::kAllow;
  }

  /// What an approval of a call to `name` is bound to besides its arguments: the tool's
  /// published schema (and, for an MCP server, its manifest entry). Changes whenever either
  /// does, so a yes given before the change cannot run the changed tool. "" when the tool
  /// is not published now.
  virtual std::string fingerprint(const std::string& name) const {
    const ToolList list = tools();  // held while iterated
    for (const auto& tool : *list) {
      if (tool.name == name) return schemaFingerprint(tool);
    }
    return {};
  }

 protected:
  static std::string schemaFingerprint(const ToolSchema& tool) {
    return tool.name + '\n' + tool.description + '\n' + tool.parameters_json;
  }
};

}  // namespace gantry::tools
