#pragma once
/// The built-in cron tools: cron_add(schedule, prompt), cron_list(), cron_remove(id). A job
/// belongs to the chat that created it (CallContext::chat_id); its runs push there.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cron/cron_options.h"
#include "store/cron_repo.h"
#include "tools/tool_source.h"

namespace Poco::JSON {
class Object;
}

namespace gantry::cron {

/// Thread-safe (state lives in the store). The store must outlive this object.
class CronTools final : public tools::ToolSource {
 public:
  using Clock = std::function<int64_t()>;  ///< Unix ms
  using OnAdded = std::function<void()>;

  /// `max_jobs` is CRON_MAX_JOBS, counted over every chat. `clock` defaults to the system clock.
  /// `on_added` is called after each job cron_add stored (the scheduler's jobsChanged()).
  CronTools(store::Store& store, Zone zone, int max_jobs, Clock clock = nullptr,
            OnAdded on_added = nullptr);

  /// cron_add, cron_list, cron_remove with fixed JSON Schemas (byte-identical across calls).
  ToolList tools() const override;
  /// Never throws; bad JSON, an invalid schedule, the job limit and store faults come back as
  /// ok=false with a text the model can act on.
  tools::ToolResult call(const std::string& name, const std::string& arguments_json,
                         const tools::CallContext& context) override;

 private:
  Result<store::CronJob> newJob(const Poco::JSON::Object& args, const std::string& chat_id) const;
  tools::ToolResult add(const Poco::JSON::Object& args, const std::string& chat_id);
  tools::ToolResult list(const std::string& chat_id);
  tools::ToolResult remove(const Poco::JSON::Object& args, const std::string& chat_id);
  std::string describeNext(const store::CronJob& job) const;
  static ToolList schemas(const Zone& zone);

  store::CronRepo repo_;
  Zone zone_;
  int max_jobs_;
  Clock clock_;
  OnAdded on_added_;
  ToolList tools_;
};

}  // namespace gantry::cron
