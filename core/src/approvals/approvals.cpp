#include "approvals/approvals.h"

#include <Poco/DigestEngine.h>
#include <Poco/SHA2Engine.h>
#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "gantry/text/split.h"
#include "log/log.h"

namespace gantry::approvals {
namespace {

using store::ApprovalRow;
using store::ApprovalState;
using store::FollowUp;

constexpr std::size_t kArgumentsShown = 600;

/// 8 characters of lower-case base32 from 40 random bits: short enough to type on a phone,
/// too many to guess within an approval's lifetime.
Result<std::string> newId() {
  std::array<unsigned char, 5> bytes{};
  if (getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
    return Status::error("approvals: no random bytes for an id");
  }
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  uint64_t bits = 0;
  for (unsigned char b : bytes) bits = (bits << 8) | b;
  std::string id(8, 'a');
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = kAlphabet[(bits >> (35 - 5 * i)) & 31];
  return id;
}

std::string normalised(std::string id) {
  std::transform(id.begin(), id.end(), id.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return id;
}

std::string refusal(const ApprovalRow& row, int64_t now) {
  switch (row.state) {
    case ApprovalState::kApproved:
    case ApprovalState::kUsed: return "approval " + row.id + " was already approved";
    case ApprovalState::kDenied: return "approval " + row.id + " was already denied";
    case ApprovalState::kExpired: return "approval " + row.id + " has expired";
    case ApprovalState::kPending: break;
  }
  return row.expires_at <= now ? "approval " + row.id + " has expired"
                               : "approval " + row.id + " could not be decided";
}

}  // namespace

std::string digestOf(const std::string& fingerprint, const std::string& tool,
                     const std::string& arguments) {
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  for (const std::string* field : {&fingerprint, &tool, &arguments}) {
    std::string length = std::to_string(field->size()) + ":";
    sha.update(length);
    sha.update(*field);
  }
  return Poco::DigestEngine::digestToHex(sha.digest());
}

Approvals::Approvals(store::Store& store, ApprovalOptions options)
    : repo_(store), options_(std::move(options)) {}

void Approvals::setOnChange(std::function<void()> on_change) {
  std::lock_guard lock(mutex_);
  on_change_ = std::move(on_change);
}

void Approvals::changed() {
  std::function<void()> on_change;
  {
    std::lock_guard lock(mutex_);
    on_change = on_change_;
  }
  decided_.notify_all();
  if (on_change) on_change();
}

Result<ApprovalRow> Approvals::request(const AskedCall& asked) {
  auto id = newId();
  if (!id.isOk()) return id.status();
  ApprovalRow row;
  row.id = id.value();
  row.chat_id = asked.chat_id;
  row.tool = asked.call.name;
  row.call_id = asked.call.id;
  row.arguments = asked.call.arguments;
  row.digest = digestOf(asked.fingerprint, asked.call.name, asked.call.arguments);
  row.created_at = now();
  row.expires_at = row.created_at + options_.ttl.count();
  if (Status s = repo_.insert(row); !s.isOk()) return s;
  log::info("approval_requested", {{"id", row.id}, {"tool", row.tool}, {"chat", row.chat_id}});
  return row;
}

Result<ApprovalRow> Approvals::await(const std::string& id, std::chrono::milliseconds wait,
                                     const CancelToken& cancel) {
  auto woken = cancel.subscribe([this] { decided_.notify_all(); });
  auto deadline = std::chrono::steady_clock::now() + wait;
  Result<ApprovalRow> row = Status::error("approvals: " + id + " not found");
  while (true) {
    if (auto expired = repo_.expireDue(now()); !expired.isOk()) {
      row = expired.status();
      break;
    }
    auto found = repo_.find(id);
    if (!found.isOk() || !found->has_value()) {
      row = found.isOk() ? Status::error("approvals: " + id + " not found") : found.status();
      break;
    }
    row = *found.value();
    auto left = deadline - std::chrono::steady_clock::now();
    if (row->state != ApprovalState::kPending || cancel.cancelled() || left <= left.zero()) break;
    std::unique_lock lock(mutex_);
    decided_.wait_for(lock, std::min<std::chrono::steady_clock::duration>(left, options_.poll));
  }
  cancel.unsubscribe(woken);
  return row;
}

Result<bool> Approvals::park(const std::string& id) {
  auto found = repo_.find(id);
  if (!found.isOk()) return found.status();
  if (!found->has_value() || found.value()->state != ApprovalState::kPending) return false;
  // Parked only while undecided: a decision that lands first is the waiting turn's to act on.
  auto parked = repo_.setFollowUp(id, FollowUp::kNone, FollowUp::kParked);
  if (!parked.isOk()) return parked.status();
  auto again = repo_.find(id);
  if (!again.isOk()) return again.status();
  if (again->has_value() && again.value()->state != ApprovalState::kPending) {
    // Decided between the read and the park: take the park back unless a follower already
    // took the row over, in which case it runs the continuation.
    auto taken_back = repo_.setFollowUp(id, FollowUp::kParked, FollowUp::kNone);
    if (!taken_back.isOk()) return taken_back.status();
    if (taken_back.value()) return false;
  }
  changed();
  return true;
}

Result<ApprovalRow> Approvals::decide(const std::string& id_text, bool approve,
                                      const std::string& who, const std::string& chat_id) {
  std::string id = normalised(id_text);
  auto found = repo_.find(id);
  if (!found.isOk()) return found.status();
  // Another chat's id is answered like an unknown one: a chat learns nothing of others.
  if (!found->has_value() || (!chat_id.empty() && found.value()->chat_id != chat_id)) {
    return Status::error("there is no approval " + id + " for this chat");
  }
  auto decided =
      repo_.decide(id, approve ? ApprovalState::kApproved : ApprovalState::kDenied, who, now());
  if (!decided.isOk()) return decided.status();
  if (!decided.value()) {
    repo_.expireDue(now());
    auto current = repo_.find(id);
    if (!current.isOk()) return current.status();
    return Status::error(refusal(current->value_or(*found.value()), now()));
  }
  auto row = repo_.find(id);
  if (!row.isOk()) return row.status();
  log::info(approve ? "approval_approved" : "approval_denied",
            {{"id", id}, {"tool", row.value()->tool}, {"by", who}});
  changed();
  return *row.value();
}

Status Approvals::claim(const std::string& id, const std::string& digest) {
  auto found = repo_.find(id);
  if (!found.isOk()) return found.status();
  if (!found->has_value()) return Status::error("approval " + id + " does not exist");
  const ApprovalRow& row = *found.value();
  if (row.state == ApprovalState::kUsed) return Status::error("approval " + id + " was used");
  if (row.state == ApprovalState::kDenied) return Status::error("the owner denied it");
  if (row.state != ApprovalState::kApproved) {
    return Status::error("approval " + id + " is " + store::approvalStateName(row.state));
  }
  if (row.digest != digest) {
    // Refused for good: the yes was given to a different tool or server entry.
    repo_.claim(id);
    return Status::error("the tool or its server entry changed since approval " + id +
                         " was asked for");
  }
  auto claimed = repo_.claim(id);
  if (!claimed.isOk()) return claimed.status();
  if (!claimed.value()) return Status::error("approval " + id + " was used");
  return Status::ok();
}

Result<std::vector<ApprovalRow>> Approvals::pending() {
  // Read only (`gantry approvals` may not write): rows past expiry are left out, not marked.
  auto rows = repo_.withState(ApprovalState::kPending);
  if (!rows.isOk()) return rows.status();
  int64_t at = now();
  std::erase_if(rows.value(), [at](const ApprovalRow& r) { return r.expires_at <= at; });
  return rows;
}

Result<std::vector<ApprovalRow>> Approvals::takeSettledParked() {
  if (auto expired = repo_.expireDue(now()); !expired.isOk()) return expired.status();
  auto parked = repo_.parked();
  if (!parked.isOk()) return parked.status();
  std::vector<ApprovalRow> settled;
  for (auto& row : parked.value()) {
    if (row.state == ApprovalState::kPending) continue;
    auto taken = repo_.setFollowUp(row.id, FollowUp::kParked, FollowUp::kDone);
    if (!taken.isOk()) return taken.status();
    if (taken.value()) settled.push_back(std::move(row));
  }
  return settled;
}

bool Approvals::anyParkedPending() {
  auto parked = repo_.parked();
  if (!parked.isOk()) return false;
  return std::any_of(parked->begin(), parked->end(),
                     [](const ApprovalRow& r) { return r.state == ApprovalState::kPending; });
}

std::string requestText(const ApprovalRow& row) {
  std::string args = log::redact(row.arguments);
  if (args.size() > kArgumentsShown) {
    args = args.substr(0, text::utf8Prefix(args, kArgumentsShown)) + "…";
  }
  int64_t minutes = std::max<int64_t>(1, (row.expires_at - row.created_at + 59999) / 60000);
  return "🔐 Approval needed to run " + row.tool + " with " + args + "\nAnswer /approve " + row.id +
         " or /deny " + row.id + " (expires in " + std::to_string(minutes) + " min).";
}

std::string waitingText(const ApprovalRow& row) {
  return "not run yet: waiting for the owner's approval " + row.id + " (/approve " + row.id +
         " or /deny " + row.id +
         "); if the owner approves, it runs once and you get its result then.";
}

}  // namespace gantry::approvals
