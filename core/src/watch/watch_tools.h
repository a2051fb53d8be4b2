#pragma once
/// The built-in watch tools: watch_add(tool, arguments, every | schedule, prompt, items?),
/// watch_list(), watch_remove(id). A watch belongs to the chat that created it
/// (CallContext::chat_id); the turns its new items start push there.

#include <cstdint>
#include <functional>
#include <string>

#include "cron/cron_options.h"
#include "store/watch_repo.h"
#include "tools/catalog.h"
#include "tools/tool_source.h"
#include "watch/watch_options.h"

namespace Poco::JSON {
class Object;
}

namespace gantry::watch {

/// Thread-safe (state lives in the store; the catalog is only read). The store and the
/// catalog must outlive this object.
class WatchTools final : public tools::ToolSource {
 public:
  using Clock = std::function<int64_t()>;  ///< Unix ms
  using OnAdded = std::function<void()>;

  /// `catalog` finds the watched tools (and their policy); `options` holds WATCH_MAX and
  /// WATCH_MIN_SECONDS. `on_added` is called after each watch stored (the poller's
  /// watchesChanged()). `clock` defaults to the system clock.
  WatchTools(store::Store& store, const tools::Catalog& catalog, cron::Zone zone,
             WatchOptions options, OnAdded on_added = nullptr, Clock clock = nullptr);

  /// watch_add, watch_list, watch_remove with fixed JSON Schemas.
  ToolList tools() const override;
  /// Never throws; bad arguments, a tool that cannot be watched, the limit and store faults
  /// come back as ok=false with a text the model can act on.
  tools::ToolResult call(const std::string& name, const std::string& arguments_json,
                         const tools::CallContext& context) override;

  /// What watch_list and `gantry watch list` say of w: "waiting for its first poll", "ok",
  /// "failing (N polls in a row): ERROR", or "tool gone: WHY" when its tool cannot be called.
  static std::string stateOf(const store::Watch& w, const std::string& refusal);

 private:
  struct Interval {
    int64_t every_seconds = 0;
    std::string schedule;
    std::string note;  ///< the interval was raised to WATCH_MIN_SECONDS
  };
  Result<Interval> interval(const Poco::JSON::Object& args) const;
  Result<store::Watch> newWatch(const Poco::JSON::Object& args, const std::string& chat_id,
                                std::string* note) const;
  Status readTarget(const Poco::JSON::Object& args, store::Watch& w) const;
  tools::ToolResult add(const Poco::JSON::Object& args, const std::string& chat_id);
  tools::ToolResult list(const std::string& chat_id);
  tools::ToolResult remove(const Poco::JSON::Object& args, const std::string& chat_id);

  store::WatchRepo repo_;
  const tools::Catalog& catalog_;
  cron::Zone zone_;
  WatchOptions options_;
  OnAdded on_added_;
  Clock clock_;
  ToolList tools_;
};

/// "every 15m" or the schedule text, for lists.
std::string describeInterval(const store::Watch& w);

}  // namespace gantry::watch
