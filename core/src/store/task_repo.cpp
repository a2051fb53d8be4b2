#include "store/task_repo.h"

#include <Poco/Data/Session.h>
#include <Poco/Data/Statement.h>
#include <Poco/Tuple.h>

#include "store/db.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {

Result<bool> TaskRepo::start(const std::string& id, const std::string& body_digest) {
  return locked(store_, "tasks", "start", [&](Poco::Data::Session& session) -> Result<bool> {
    std::string key = id, digest = body_digest;
    Poco::Int64 at = nowMs();
    Poco::Data::Statement statement(session);
    statement << "INSERT OR IGNORE INTO api_tasks(id, body_digest, status, created_at) "
                 "VALUES (?, ?, 'running', ?)",
        use(key), use(digest), use(at);
    return statement.execute() == 1;
  });
}

Result<std::optional<TaskRow>> TaskRepo::find(const std::string& id) {
  return locked(
      store_, "tasks", "find", [&](Poco::Data::Session& session) -> Result<std::optional<TaskRow>> {
        std::string key = id;
        std::vector<Poco::Tuple<std::string, std::string, std::string, std::string, Poco::Int64,
                                Poco::Int64>>
            rows;
        session << "SELECT id, body_digest, status, reply, steps, ms FROM api_tasks "
                   "WHERE id = ?",
            use(key), into(rows), now;
        if (rows.empty()) return std::optional<TaskRow>{};
        const auto& r = rows.front();
        return std::optional<TaskRow>{
            TaskRow{r.get<0>(), r.get<1>(), r.get<2>(), r.get<3>(), r.get<4>(), r.get<5>()}};
      });
}

Status TaskRepo::finish(const TaskRow& row) {
  return locked(store_, "tasks", "finish", [&](Poco::Data::Session& session) -> Status {
    TaskRow r = row;
    Poco::Int64 at = nowMs();
    session << "UPDATE api_tasks SET status = ?, reply = ?, steps = ?, ms = ?, finished_at = ? "
               "WHERE id = ?",
        use(r.status), use(r.reply), use(r.steps), use(r.ms), use(at), use(r.id), now;
    return Status::ok();
  });
}

Result<int64_t> TaskRepo::closeInterrupted() {
  return locked(store_, "tasks", "close interrupted",
                [&](Poco::Data::Session& session) -> Result<int64_t> {
                  Poco::Int64 at = nowMs();
                  Poco::Data::Statement statement(session);
                  statement << "UPDATE api_tasks SET status = 'failed', reply = 'interrupted by "
                               "a restart; not run again', finished_at = ? WHERE status = "
                               "'running'",
                      use(at);
                  return static_cast<int64_t>(statement.execute());
                });
}

}  // namespace gantry::store
