#pragma once
/// TaskService: `POST /task` — one stateless turn per task id (its own session, no chat
/// history), with a step budget (model calls) and a wall-clock budget, at most N at once, run
/// once per id across restarts, the reply sent to the owner's chat unless asked not to.

#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "agent/agent.h"
#include "gantry/channel.h"
#include "store/task_repo.h"

namespace gantry::api {

struct TaskContextItem {
  std::string author, content, timestamp;
};

/// Where the caller says a task came from (the Veskslop body's platform ids and author): shown
/// to the model as untrusted context, never used to route anything.
struct TaskSource {
  std::string guild_id, channel_id, author;
  bool empty() const { return guild_id.empty() && channel_id.empty() && author.empty(); }
};

struct TaskRequest {
  std::string id;
  std::string content;
  std::vector<TaskContextItem> context;
  TaskSource source;
  bool sensitive = false;  ///< the reply is returned only, never sent to a chat
  std::string chat;        ///< where the reply goes; empty or checked to be the owner's chat
  bool reply_to_chat = true;
  std::string body_digest;  ///< of the request body: the same id must come with the same body
};

struct TaskOutcome {
  int http_status = 200;
  std::string error;  ///< set for a non-200 status
  int retry_after = 0;
  store::TaskRow row;  ///< id, status, reply, steps, ms
};

struct TaskOptions {
  int max_steps = 16;
  std::chrono::seconds wall{300};
  int concurrency = 2;
  std::string owner_chat;
};

/// Thread-safe.
class TaskService {
 public:
  /// agent, channel and store are not owned and outlive this.
  TaskService(agent::Agent& agent, Channel& channel, store::Store& store, TaskOptions options);
  ~TaskService();

  /// Runs the task (blocking) or answers from the record.
  TaskOutcome run(const TaskRequest& request);
  /// Cancels running tasks (recorded as cancelled); new ones are refused.
  void shutdown();
  int running();

 private:
  TaskOutcome answerRecorded(const store::TaskRow& row, const TaskRequest& request);
  store::TaskRow execute(const TaskRequest& request);
  void deliver(const TaskRequest& request, const store::TaskRow& row);

  agent::Agent& agent_;
  Channel& channel_;
  store::TaskRepo repo_;
  TaskOptions options_;
  std::mutex mutex_;
  std::condition_variable done_;
  bool stopping_ = false;
  std::set<std::string> in_flight_;  ///< ids running in this process
  std::set<CancelToken*> tokens_;
};

/// The digest a task's id is bound to (hex SHA-256 of what makes it this task).
std::string bodyDigest(std::string_view body);

/// The message a task turn sends: the context and the source marked as untrusted data, each
/// item one JSON object on its own line (so no item can forge a delimiter), then the task.
std::string taskMessage(const TaskRequest& request);

}  // namespace gantry::api
