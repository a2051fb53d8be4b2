#pragma once
/// FakeToolSource: a tools::ToolSource whose calls run a test's handler, recording the order
/// calls started and how many ran at once. Thread-safe, as the interface asks.

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tools/tool_source.h"

namespace gantry::testing {

class FakeToolSource final : public tools::ToolSource {
 public:
  using Handler =
      std::function<tools::ToolResult(const std::string& name, const std::string& arguments_json)>;

  /// names are published as they are; serialized asks the loop for one call at a time.
  explicit FakeToolSource(std::vector<std::string> names, bool serialized = false)
      : names_(std::move(names)), serialized_(serialized) {}

  /// Runs for every call (on the call's thread); unset answers "ok NAME".
  Handler handler;
  /// The owner's policy by tool name; unlisted tools are allowed. Set before calls start.
  std::map<std::string, tools::Policy> policies;
  /// The MCP server it stands for ("": a built-in), and that server's one-line summary.
  std::string server_name;
  std::string server_summary;
  /// Part of every published description: changing it changes the tools' schemas.
  std::string schema_version;
  /// The prefix of its names ("" for none) and, while its server is down, what a call to
  /// one of them is told. Set before calls start.
  std::string name_prefix;
  std::string outage_text;

  /// Replaces the tools (a server coming up late). Not while other threads read tools().
  void setNames(std::vector<std::string> names) { names_ = std::move(names); }

  /// A new list each call: the fields above may change between calls.
  ToolList tools() const override {
    std::vector<ToolSchema> schemas;
    for (const auto& name : names_) {
      schemas.push_back(
          {name, "fake tool " + name + schema_version, R"({"type":"object","properties":{}})"});
    }
    return makeToolList(std::move(schemas));
  }

  tools::ToolResult call(const std::string& name, const std::string& arguments_json,
                         const tools::CallContext&) override {
    enter(name);
    tools::ToolResult result =
        handler ? handler(name, arguments_json) : tools::ToolResult{true, "ok " + name};
    std::lock_guard lock(mutex_);
    --in_flight_;
    return result;
  }
  bool serialized() const override { return serialized_; }
  std::string server() const override { return server_name; }
  std::string summary() const override { return server_summary; }
  std::string namePrefix() const override { return name_prefix; }
  std::string outage() const override { return outage_text; }
  tools::Policy policy(const std::string& name) const override {
    auto found = policies.find(name);
    return found == policies.end() ? tools::Policy::kAllow : found->second;
  }

  std::vector<std::string> started() {
    std::lock_guard lock(mutex_);
    return started_;
  }
  int maxInFlight() {
    std::lock_guard lock(mutex_);
    return max_in_flight_;
  }

 private:
  void enter(const std::string& name) {
    std::lock_guard lock(mutex_);
    started_.push_back(name);
    max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
  }

  std::vector<std::string> names_;
  bool serialized_;
  std::mutex mutex_;
  std::vector<std::string> started_;
  int in_flight_ = 0;
  int max_in_flight_ = 0;
};

}  // namespace gantry::testing
