#include "store/approval_repo.h"

#include <Poco/Data/Session.h>
#include <Poco/Data/Statement.h>
#include <Poco/Tuple.h>

#include <array>

#include "store/db.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {
namespace {

constexpr std::array<const char*, 5> kStateNames = {"pending", "approved", "denied", "expired",
                                                    "used"};
constexpr std::array<const char*, 3> kFollowUpNames = {"none", "parked", "done"};

template <class Enum, std::size_t N>
Enum fromName(const std::array<const char*, N>& names, const std::string& name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<Enum>(i);
  }
  return static_cast<Enum>(0);
}

std::string followUpName(FollowUp f) { return kFollowUpNames.at(static_cast<std::size_t>(f)); }

constexpr const char* kColumns =
    "SELECT id, chat_id, tool, call_id, arguments, digest, created_at, expires_at, state, "
    "decided_by, COALESCE(decided_at, 0), follow_up, request_seal, decision_seal FROM approvals ";

using Row = Poco::Tuple<std::string, std::string, std::string, std::string, std::string,
                        std::string, Poco::Int64, Poco::Int64, std::string, std::string,
                        Poco::Int64, std::string, std::string, std::string>;

ApprovalRow fromTuple(const Row& r) {
  ApprovalRow row;
  row.id = r.get<0>();
  row.chat_id = r.get<1>();
  row.tool = r.get<2>();
  row.call_id = r.get<3>();
  row.arguments = r.get<4>();
  row.digest = r.get<5>();
  row.created_at = r.get<6>();
  row.expires_at = r.get<7>();
  row.state = fromName<ApprovalState>(kStateNames, r.get<8>());
  row.decided_by = r.get<9>();
  row.decided_at = r.get<10>();
  row.follow_up = fromName<FollowUp>(kFollowUpNames, r.get<11>());
  row.request_seal = r.get<12>();
  row.decision_seal = r.get<13>();
  return row;
}

/// Runs a SELECT of kColumns followed by `where` with one bound text value.
std::vector<ApprovalRow> select(Poco::Data::Session& session, const std::string& where,
                                const std::string& value) {
  std::vector<Row> rows;
  std::string bound = value;
  session << std::string(kColumns) + where, use(bound), into(rows), now;
  std::vector<ApprovalRow> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(fromTuple(r));
  return out;
}

/// Runs an UPDATE and returns the number of rows it changed.
template <class... Bound>
int64_t update(Poco::Data::Session& session, const char* sql, Bound&... values) {
  Poco::Data::Statement statement(session);
  ((statement << sql), ..., use(values));
  return static_cast<int64_t>(statement.execute());
}

}  // namespace

const char* approvalStateName(ApprovalState state) {
  return kStateNames.at(static_cast<std::size_t>(state));
}

Status ApprovalRepo::insert(const ApprovalRow& row) {
  return locked(store_, "approvals", "insert", [&](Poco::Data::Session& session) -> Status {
    ApprovalRow r = row;
    std::string state = approvalStateName(r.state), follow_up = followUpName(r.follow_up);
    session
        << "INSERT INTO approvals(id, chat_id, tool, call_id, arguments, digest, created_at, "
           "expires_at, state, follow_up, request_seal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        use(r.id), use(r.chat_id), use(r.tool), use(r.call_id), use(r.arguments), use(r.digest),
        use(r.created_at), use(r.expires_at), use(state), use(follow_up), use(r.request_seal), now;
    return Status::ok();
  });
}

Result<std::optional<ApprovalRow>> ApprovalRepo::find(const std::string& id) {
  return locked(store_, "approvals", "find",
                [&](Poco::Data::Session& session) -> Result<std::optional<ApprovalRow>> {
                  auto rows = select(session, "WHERE id = ?", id);
                  if (rows.empty()) return std::optional<ApprovalRow>{};
                  return std::optional<ApprovalRow>{rows.front()};
                });
}

Result<std::vector<ApprovalRow>> ApprovalRepo::expireDue(int64_t now_ms) {
  return locked(store_, "approvals", "expire",
                [&](Poco::Data::Session& session) -> Result<std::vector<ApprovalRow>> {
                  Poco::Int64 at = now_ms;
                  Transaction transaction(store_.db());
                  std::vector<Row> rows;
                  session << std::string(kColumns) +
                                 "WHERE state = 'pending' AND expires_at <= ? ORDER BY created_at",
                      use(at), into(rows), now;
                  update(session,
                         "UPDATE approvals SET state = 'expired' WHERE state = 'pending' AND "
                         "expires_at <= ?",
                         at);
                  transaction.commit();
                  std::vector<ApprovalRow> out;
                  out.reserve(rows.size());
                  for (const auto& r : rows) out.push_back(fromTuple(r));
                  return out;
                });
}

Result<bool> ApprovalRepo::decide(const std::string& id, ApprovalState to,
                                  const std::string& decided_by, int64_t now_ms,
                                  const std::string& decision_seal) {
  return locked(store_, "approvals", "decide", [&](Poco::Data::Session& session) -> Result<bool> {
    std::string state = approvalStateName(to), who = decided_by, key = id, seal = decision_seal;
    Poco::Int64 at = now_ms;
    return update(session,
                  "UPDATE approvals SET state = ?, decided_by = ?, decided_at = ?, "
                  "decision_seal = ? WHERE id = ? AND state = 'pending' AND expires_at > ?",
                  state, who, at, seal, key, at) == 1;
  });
}

Result<bool> ApprovalRepo::undoDecision(const std::string& id, const std::string& decision_seal) {
  return locked(store_, "approvals", "undo", [&](Poco::Data::Session& session) -> Result<bool> {
    std::string key = id, seal = decision_seal;
    return update(session,
                  "UPDATE approvals SET state = 'pending', decided_by = '', decided_at = NULL, "
                  "decision_seal = '' WHERE id = ? AND decision_seal = ? AND state IN "
                  "('approved', 'denied', 'used')",
                  key, seal) == 1;
  });
}

Status ApprovalRepo::disown(const std::string& id) {
  return locked(store_, "approvals", "disown", [&](Poco::Data::Session& session) -> Status {
    std::string key = id;
    update(session, "UPDATE approvals SET state = 'expired', follow_up = 'done' WHERE id = ?", key);
    return Status::ok();
  });
}

Result<bool> ApprovalRepo::claim(const std::string& id) {
  return locked(store_, "approvals", "claim", [&](Poco::Data::Session& session) -> Result<bool> {
    std::string key = id;
    return update(session,
                  "UPDATE approvals SET state = 'used' WHERE id = ? AND state = 'approved'",
                  key) == 1;
  });
}

Result<bool> ApprovalRepo::setFollowUp(const std::string& id, FollowUp from, FollowUp to) {
  return locked(
      store_, "approvals", "follow up", [&](Poco::Data::Session& session) -> Result<bool> {
        std::string key = id, before = followUpName(from), after = followUpName(to);
        return update(session, "UPDATE approvals SET follow_up = ? WHERE id = ? AND follow_up = ?",
                      after, key, before) == 1;
      });
}

Result<std::vector<ApprovalRow>> ApprovalRepo::withState(ApprovalState state) {
  return locked(store_, "approvals", "list",
                [&](Poco::Data::Session& session) -> Result<std::vector<ApprovalRow>> {
                  return select(session, "WHERE state = ? ORDER BY created_at, id",
                                approvalStateName(state));
                });
}

Result<std::vector<ApprovalRow>> ApprovalRepo::parked() {
  return locked(store_, "approvals", "parked",
                [&](Poco::Data::Session& session) -> Result<std::vector<ApprovalRow>> {
                  return select(session, "WHERE follow_up = ? ORDER BY created_at, id",
                                followUpName(FollowUp::kParked));
                });
}

Result<int64_t> ApprovalRepo::parkOrphans() {
  return locked(store_, "approvals", "park orphans",
                [&](Poco::Data::Session& session) -> Result<int64_t> {
                  Poco::Data::Statement statement(session);
                  statement << "UPDATE approvals SET follow_up = 'parked' WHERE follow_up = "
                               "'none' AND state IN ('pending', 'approved')";
                  return static_cast<int64_t>(statement.execute());
                });
}

}  // namespace gantry::store
