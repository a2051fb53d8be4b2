#include "store/maintenance.h"

#include <Poco/Data/Session.h>
#include <Poco/Data/Statement.h>

#include "store/db.h"

using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {

namespace {

constexpr const char* kIndexes[][2] = {{"memory_fts", "the memory table"},
                                       {"messages_fts", "the user and assistant messages"}};

}  // namespace

Status checkFts(Store& store) {
  std::lock_guard lock(store.mutex());
  for (const auto& [index, table] : kIndexes) {
    try {
      store.db().session << "INSERT INTO " << index << "(" << index
                         << ", rank) VALUES ('integrity-check', 1)",
          now;
    } catch (const Poco::Exception& e) {
      return Status::error(std::string(index) + " does not match " + table + ": " +
                           e.displayText());
    }
  }
  return Status::ok();
}

Status rebuildFts(Store& store) {
  std::lock_guard lock(store.mutex());
  for (const auto& [index, table] : kIndexes) {
    try {
      store.db().session << "INSERT INTO " << index << "(" << index << ") VALUES ('rebuild')", now;
    } catch (const Poco::Exception& e) {
      return Status::error("store: rebuilding " + std::string(index) + ": " + e.displayText());
    }
  }
  return Status::ok();
}

Result<Pruned> pruneRecord(Store& store, int64_t cutoff_ms) {
  return locked(store, "store", "prune", [&](Poco::Data::Session& session) -> Result<Pruned> {
    Poco::Int64 cutoff = cutoff_ms;
    Pruned pruned;
    Transaction transaction(store.db());
    auto run = [&](const char* sql, int64_t* count) {
      Poco::Data::Statement statement(session);
      statement << sql, use(cutoff);
      *count = static_cast<int64_t>(statement.execute());
    };
    run("DELETE FROM tool_calls WHERE message_id IN (SELECT id FROM messages WHERE "
        "created_at < ? AND in_history = 0)",
        &pruned.tool_calls);
    run("DELETE FROM messages WHERE created_at < ? AND in_history = 0", &pruned.messages);
    run("DELETE FROM usage WHERE at < ?", &pruned.usage);
    run("DELETE FROM turns WHERE started_at < ?", &pruned.turns);
    run("DELETE FROM tool_repairs WHERE at < ?", &pruned.repairs);
    run("DELETE FROM inbox WHERE handled_at IS NOT NULL AND received_at < ?", &pruned.inbox);
    run("DELETE FROM approvals WHERE expires_at < ?", &pruned.approvals);
    run("DELETE FROM outbox WHERE state <> 'pending' AND created_at < ?", &pruned.outbox);
    transaction.commit();
    return pruned;
  });
}

}  // namespace gantry::store
