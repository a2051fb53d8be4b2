#include "watch/watch_call.h"

#include "log/log.h"
#include "tools/arguments.h"

namespace gantry::watch {
namespace {

std::string unknownTool(const std::string& tool, const tools::Resolution& resolution) {
  std::string text = "there is no tool named \"" + tool + "\"";
  if (!resolution.candidates.empty()) {
    text += " (did you mean";
    for (std::size_t i = 0; i < resolution.candidates.size(); ++i) {
      text += (i != 0 ? ", " : " ") + resolution.candidates[i];
    }
    text += "?)";
  }
  return text;
}

}  // namespace

std::string watchRefusal(const tools::Catalog& catalog, const std::string& tool) {
  tools::Resolution resolution = catalog.resolve(tool);
  if (resolution.source == nullptr) {
    return resolution.outage.empty() ? unknownTool(tool, resolution) : resolution.outage;
  }
  if (resolution.source->server().empty()) {
    return resolution.name + " is a built-in tool; only MCP tools can be watched";
  }
  tools::Policy policy = resolution.source->policy(resolution.name);
  if (policy != tools::Policy::kAllow) {
    return std::string("the owner's policy for ") + resolution.name + " is " +
           tools::policyName(policy) +
           "; a watch calls its tool unattended, so only a tool whose policy is allow can be "
           "watched";
  }
  return {};
}

std::string resolvedName(const tools::Catalog& catalog, const std::string& tool) {
  tools::Resolution resolution = catalog.resolve(tool);
  return resolution.source != nullptr ? resolution.name : std::string();
}

tools::ToolResult callWatched(const tools::Catalog& catalog, const std::string& tool,
                              const std::string& arguments, const tools::CallContext& context) {
  try {
    if (std::string refusal = watchRefusal(catalog, tool); !refusal.empty()) {
      return {false, refusal};
    }
    tools::Resolution resolution = catalog.resolve(tool);
    Result<std::string> canonical = tools::canonicalArguments(arguments);
    if (!canonical.isOk()) return {false, canonical.status().message()};
    tools::ToolResult result = resolution.source->call(resolution.name, canonical.value(), context);
    result.text = log::redact(std::move(result.text));
    return result;
  } catch (const std::exception& e) {
    return {false, tool + ": " + e.what()};
  }
}

}  // namespace gantry::watch
