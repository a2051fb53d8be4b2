#include "approvals/approvals.h"

#include <Poco/DigestEngine.h>
#include <Poco/HMACEngine.h>
#include <Poco/SHA2Engine.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "log/log.h"
#include "tools/arguments.h"

namespace gantry::approvals {
namespace {

using store::ApprovalRow;
using store::ApprovalState;
using store::FollowUp;

constexpr std::size_t kValueShown = 300;  // per argument; `gantry approvals show` prints all

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

/// Poco's HMACEngine takes its digest engine as a type with a default constructor.
class Sha256Engine : public Poco::SHA2Engine {
 public:
  enum { BLOCK_SIZE = 64, DIGEST_SIZE = 32 };
  Sha256Engine() : Poco::SHA2Engine(Poco::SHA2Engine::SHA_256) {}
};

/// A MAC over the fields, each length-prefixed so no two field lists collide. A request's
/// covers what would run and where it was asked; its expiry is left out (moving it changes
/// no decision's meaning, and the tests move it to travel in time).
std::string mac(const std::string& key, std::initializer_list<std::string> fields) {
  Poco::HMACEngine<Sha256Engine> hmac(key);
  for (const auto& field : fields) {
    std::string length = std::to_string(field.size()) + ":";
    hmac.update(length);
    hmac.update(field);
  }
  return Poco::DigestEngine::digestToHex(hmac.digest());
}

std::string requestSeal(const std::string& key, const ApprovalRow& row) {
  return mac(key, {"request", row.id, row.chat_id, row.tool, row.call_id, row.arguments, row.digest,
                   std::to_string(row.created_at)});
}

// A used row was approved: its seal names the decision, not what running it made of the row.
std::string decisionSeal(const std::string& key, const ApprovalRow& row) {
  const ApprovalState decided =
      row.state == ApprovalState::kUsed ? ApprovalState::kApproved : row.state;
  return mac(key, {"decision", row.id, store::approvalStateName(decided), row.decided_by,
                   std::to_string(row.decided_at), row.request_seal});
}

bool sealsMatch(const std::string& a, const std::string& b) {
  if (a.size() != b.size() || a.empty()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string randomKey() {
  std::string key(32, '\0');
  if (getrandom(key.data(), key.size(), 0) != static_cast<ssize_t>(key.size())) key.clear();
  return key;
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

Result<std::string> loadSealKey(const std::string& data_dir) {
  const std::string path = data_dir + "/approvals.key";
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0) {
      std::string key(33, '\0');
      const ssize_t n = ::read(fd, key.data(), key.size());
      ::close(fd);
      if (n != 32) return Status::error("approvals: " + path + " is not a 32-byte key");
      key.resize(32);
      return key;
    }
    if (errno != ENOENT) {
      return Status::error("approvals: cannot read " + path + ": " + std::strerror(errno));
    }
    // Written aside, then linked into place: two first starts agree on one key.
    const std::string key = randomKey();
    const std::string aside = path + "." + std::to_string(::getpid());
    const int out = ::open(aside.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (key.empty() || out < 0) {
      return Status::error("approvals: cannot create " + path + ": " + std::strerror(errno));
    }
    const bool written = ::write(out, key.data(), key.size()) == 32 && ::fsync(out) == 0;
    ::close(out);
    const bool linked = written && ::link(aside.c_str(), path.c_str()) == 0;
    ::unlink(aside.c_str());
    if (linked) return key;
  }
  return Status::error("approvals: cannot create " + path);
}

Approvals::Approvals(store::Store& store, ApprovalOptions options)
    : repo_(store), options_(std::move(options)) {
  if (options_.seal_key.empty()) options_.seal_key = randomKey();
}

ApprovalRow Approvals::vetted(ApprovalRow row) {
  if (!sealsMatch(row.request_seal, requestSeal(options_.seal_key, row))) {
    log::error("approval_forged", {{"id", row.id}, {"tool", row.tool}, {"part", "request"}});
    repo_.disown(row.id);
    row.state = ApprovalState::kExpired;
    row.follow_up = FollowUp::kDone;
    return row;
  }
  const bool decided = row.state == ApprovalState::kApproved ||
                       row.state == ApprovalState::kDenied || row.state == ApprovalState::kUsed;
  if (decided && !sealsMatch(row.decision_seal, decisionSeal(options_.seal_key, row))) {
    log::error("approval_forged", {{"id", row.id}, {"tool", row.tool}, {"part", "decision"}});
    repo_.undoDecision(row.id, row.decision_seal);
    row.state = ApprovalState::kPending;
    row.decided_by.clear();
    row.decided_at = 0;
  }
  return row;
}

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
  row.request_seal = requestSeal(options_.seal_key, row);
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
    row = vetted(*found.value());
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
  if (!found->has_value() || vetted(*found.value()).state != ApprovalState::kPending) return false;
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
  ApprovalRow decision = vetted(*found.value());
  decision.state = approve ? ApprovalState::kApproved : ApprovalState::kDenied;
  decision.decided_by = who;
  decision.decided_at = now();
  auto decided = repo_.decide(id, decision.state, who, decision.decided_at,
                              decisionSeal(options_.seal_key, decision));
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
  const ApprovalRow row = vetted(*found.value());
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

Result<ApprovalRow> Approvals::show(const std::string& id_text) {
  const std::string id = normalised(id_text);
  auto found = repo_.find(id);
  if (!found.isOk()) return found.status();
  if (!found->has_value() ||
      !sealsMatch(found.value()->request_seal, requestSeal(options_.seal_key, *found.value()))) {
    return Status::error("there is no approval " + id);
  }
  return *found.value();
}

Result<std::vector<ApprovalRow>> Approvals::pending() {
  // Read only (`gantry approvals` may not write): rows past expiry are left out, not marked.
  auto rows = repo_.withState(ApprovalState::kPending);
  if (!rows.isOk()) return rows.status();
  int64_t at = now();
  std::erase_if(rows.value(), [&](const ApprovalRow& r) {
    return r.expires_at <= at || !sealsMatch(r.request_seal, requestSeal(options_.seal_key, r));
  });
  return rows;
}

Result<std::vector<ApprovalRow>> Approvals::takeSettledParked() {
  if (auto expired = repo_.expireDue(now()); !expired.isOk()) return expired.status();
  auto parked = repo_.parked();
  if (!parked.isOk()) return parked.status();
  std::vector<ApprovalRow> settled;
  for (auto& found : parked.value()) {
    ApprovalRow row = vetted(found);
    if (row.state == ApprovalState::kPending || row.follow_up != FollowUp::kParked) continue;
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

std::string argumentsText(const ApprovalRow& row, std::size_t max_value_chars) {
  const std::string args = log::redact(row.arguments);
  if (args == "{}") return "with {}";
  return "with:\n" + tools::describeArguments(args, max_value_chars);
}

std::string requestText(const ApprovalRow& row) {
  int64_t minutes = std::max<int64_t>(1, (row.expires_at - row.created_at + 59999) / 60000);
  return "🔐 Approval needed to run " + row.tool + " " + argumentsText(row, kValueShown) +
         "\nAnswer /approve " + row.id + " or /deny " + row.id + " (expires in " +
         std::to_string(minutes) + " min).";
}

std::string waitingText(const ApprovalRow& row) {
  return "not run yet: waiting for the owner's approval " + row.id + " (/approve " + row.id +
         " or /deny " + row.id +
         "); if the owner approves, it runs once and you get its result then.";
}

}  // namespace gantry::approvals
