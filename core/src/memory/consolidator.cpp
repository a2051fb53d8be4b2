#include "memory/consolidator.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "log/log.h"
#include "memory/consolidation_prompt.h"
#include "memory/persona_conflicts.h"
#include "store/kv_repo.h"
#include "store/session_repo.h"

namespace gantry::memory {
namespace {

const std::vector<std::string> kDurableKinds = {"fact", "preference", "person", "insight"};
constexpr const char* kKvNamespace = "memory";
constexpr const char* kSummariesSeenKey = "consolidation_summaries_seen_at";

std::string stringOf(const Poco::JSON::Object& object, const std::string& key) {
  if (!object.has(key) || !object.get(key).isString()) return "";
  return object.get(key).toString();
}

Poco::JSON::Array::Ptr arrayOf(const Poco::JSON::Object& object, const std::string& key) {
  if (!object.has(key)) return new Poco::JSON::Array;
  auto array = object.getArray(key);
  if (array.isNull()) throw Poco::DataFormatException("\"" + key + "\" is not an array");
  return array;
}

// When the last pass read session summaries; 0 before the first (or on a garbled value).
int64_t summariesSeenAt(store::KvRepo& kv) {
  std::string text = kv.get(kKvNamespace, kSummariesSeenKey).value_or("0");
  int64_t at = 0;
  std::from_chars(text.data(), text.data() + text.size(), at);
  return at;
}

bool blank(const std::string& text) {
  return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

std::vector<int64_t> idsOf(const Poco::JSON::Object& entry) {
  std::vector<int64_t> ids;
  if (!entry.has("supersedes") || entry.getArray("supersedes").isNull()) return ids;
  for (const auto& value : *entry.getArray("supersedes")) {
    if (value.isInteger()) ids.push_back(value.convert<Poco::Int64>());
  }
  return ids;
}

void addMemory(Proposal& proposal, const Poco::JSON::Object& entry) {
  Proposal::Memory memory{stringOf(entry, "kind"), stringOf(entry, "subject"),
                          stringOf(entry, "content"), 0.8, idsOf(entry)};
  bool durable =
      std::find(kDurableKinds.begin(), kDurableKinds.end(), memory.kind) != kDurableKinds.end();
  if (!durable || blank(memory.subject) || blank(memory.content)) {
    log::warn("memory: consolidation skipped an invalid proposal", {{"kind", memory.kind}});
    return;
  }
  if (entry.has("confidence") && entry.get("confidence").isNumeric()) {
    memory.confidence = std::clamp(entry.get("confidence").convert<double>(), 0.0, 1.0);
  }
  proposal.memories.push_back(std::move(memory));
}

std::string normalized(const std::string& text) {
  std::string out;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (std::isspace(u) || c == '.') continue;
    out += static_cast<char>(std::tolower(u));
  }
  return out;
}

bool sameMemory(const std::string& kind, const std::string& subject, const std::string& content,
                const store::MemoryRow& row) {
  return row.kind == kind && normalized(row.subject) == normalized(subject) &&
         normalized(row.content) == normalized(content);
}

bool isConflict(const Proposal& proposal, const Proposal::Memory& memory) {
  return std::any_of(proposal.conflicts.begin(), proposal.conflicts.end(), [&](const auto& c) {
    return normalized(c.subject) == normalized(memory.subject) &&
           normalized(c.content) == normalized(memory.content);
  });
}

}  // namespace

Result<Proposal> parseProposal(const std::string& reply) {
  auto open = reply.find('{');
  auto close = reply.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) {
    return Status::error("memory: consolidation reply holds no JSON object");
  }
  try {
    Poco::JSON::Parser parser;
    auto value = parser.parse(reply.substr(open, close - open + 1));
    if (value.type() != typeid(Poco::JSON::Object::Ptr)) {
      return Status::error("memory: consolidation reply is not a JSON object");
    }
    auto object = value.extract<Poco::JSON::Object::Ptr>();
    Proposal proposal;
    auto conflicts = arrayOf(*object, "conflicts");
    auto memories = arrayOf(*object, "memories");
    for (const auto& entry : *conflicts) {
      if (entry.type() != typeid(Poco::JSON::Object::Ptr)) continue;
      auto c = entry.extract<Poco::JSON::Object::Ptr>();
      Proposal::Conflict conflict{stringOf(*c, "subject"), stringOf(*c, "content"),
                                  stringOf(*c, "persona_excerpt"), 0};
      if (c->has("memory_id") && c->get("memory_id").isInteger()) {
        conflict.memory_id = c->get("memory_id").convert<Poco::Int64>();
      }
      if (!blank(conflict.content)) proposal.conflicts.push_back(std::move(conflict));
    }
    for (const auto& entry : *memories) {
      if (entry.type() == typeid(Poco::JSON::Object::Ptr)) {
        addMemory(proposal, *entry.extract<Poco::JSON::Object::Ptr>());
      }
    }
    return proposal;
  } catch (const Poco::Exception& e) {
    return Status::error("memory: consolidation reply is not valid JSON (" + e.displayText() + ")");
  }
}

namespace {

// Records a conflict. It names its row only when that row was shown and the persona line it
// contradicts is found: a row is withheld from the prompt only for a line the persona holds.
Status recordConflict(store::MemoryRepo& repo, const Proposal::Conflict& conflict,
                      const std::set<int64_t>& shown, const std::string& persona) {
  std::string line = personaLineOf(persona, conflict.persona_excerpt);
  int64_t row = shown.count(conflict.memory_id) ? conflict.memory_id : 0;
  if (row != 0 && line.empty()) {
    log::warn("memory: a conflict's persona excerpt is not in the persona; the row is kept",
              {{"memory_id", std::to_string(row)}});
    row = 0;
  }
  auto id = repo.insertConflict(conflict.subject, conflict.content,
                                line.empty() ? conflict.persona_excerpt : line, row);
  return id.isOk() ? Status::ok() : id.status();
}

// Applies proposals: conflicts recorded, new rows written, shown duplicates linked.
// episodes are the ids of the episodes the model was shown.
Result<ConsolidationReport> apply(store::MemoryRepo& repo, const Proposal& proposal,
                                  const ConsolidationInput& input,
                                  const std::vector<int64_t>& episodes,
                                  ConsolidationReport report) {
  const auto& existing = input.existing;
  std::set<int64_t> shown;
  for (const auto& row : existing) shown.insert(row.id);
  std::set<int64_t> rows = shown;
  rows.insert(episodes.begin(), episodes.end());
  for (const auto& conflict : proposal.conflicts) {
    if (Status s = recordConflict(repo, conflict, rows, input.persona); !s.isOk()) return s;
    ++report.conflicts;
  }
  for (const auto& memory : proposal.memories) {
    if (isConflict(proposal, memory)) continue;
    if (std::any_of(existing.begin(), existing.end(), [&](const auto& row) {
          return sameMemory(memory.kind, memory.subject, memory.content, row);
        })) {
      ++report.duplicates;
      continue;
    }
    store::NewMemory row{memory.kind,     memory.subject,    memory.content,
                         "consolidation", memory.confidence, 0};
    auto id = repo.insert(row);
    if (!id.isOk()) return id.status();
    ++report.written;
    for (int64_t old : memory.supersedes) {
      if (!shown.count(old) || !repo.supersede(old, id.value()).isOk()) continue;
      shown.erase(old);
      ++report.superseded;
    }
  }
  return report;
}

}  // namespace

Consolidator::Consolidator(store::Store& store, Provider& provider, std::string persona,
                           ConsolidatorOptions options)
    : store_(store), provider_(provider), options_(options), persona_(std::move(persona)) {}

Consolidator::~Consolidator() { stop(); }

void Consolidator::start() {
  std::lock_guard lock(mutex_);
  if (options_.period.count() <= 0 || thread_.joinable()) return;
  stopping_ = false;
  cancel_ = std::make_unique<CancelToken>();
  thread_ = std::thread([this] { loop(); });
}

void Consolidator::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (cancel_) cancel_->cancel();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Consolidator::setPersona(std::string persona) {
  std::lock_guard lock(mutex_);
  persona_ = std::move(persona);
}

std::string Consolidator::persona() {
  std::lock_guard lock(mutex_);
  return persona_;
}

void Consolidator::loop() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, options_.period, [this] { return stopping_; })) {
    lock.unlock();
    auto report = runOnce(*cancel_);
    if (!report.isOk()) {
      log::warn("memory: consolidation pass failed", {{"error", report.status().message()}});
    } else if (!report->skipped) {
      log::info("memory: consolidation pass", {{"episodes", std::to_string(report->episodes)},
                                               {"summaries", std::to_string(report->summaries)},
                                               {"written", std::to_string(report->written)},
                                               {"superseded", std::to_string(report->superseded)},
                                               {"conflicts", std::to_string(report->conflicts)},
                                               {"purged", std::to_string(report->purged)}});
    }
    lock.lock();
  }
}

// Reads a pass's input; the error of the first failing query otherwise.
Result<ConsolidationInput> Consolidator::readInput(int64_t since_ms, int64_t now_ms) {
  store::MemoryRepo repo(store_);
  auto summaries = store::SessionRepo(store_).recentSummaries(since_ms, options_.max_summaries);
  if (!summaries.isOk()) return summaries.status();
  auto episodes = repo.unconsolidatedEpisodes(options_.max_episodes, now_ms);
  if (!episodes.isOk()) return episodes.status();
  auto existing = repo.active(kDurableKinds, options_.max_existing, now_ms);
  if (!existing.isOk()) return existing.status();
  return ConsolidationInput{persona(), existing.value(), episodes.value(), summaries.value()};
}

Result<Proposal> Consolidator::ask(const std::vector<ChatMessage>& messages,
                                   const CancelToken& cancel) {
  ChatRequest request;
  request.messages = &messages;
  auto response = provider_.chat(request, nullptr, cancel);
  if (!response.isOk()) {
    return Status::error("memory: consolidation model call failed: " + response.status().message());
  }
  auto proposal = parseProposal(response->message.content);
  if (!proposal.isOk()) {
    log::warn("memory: consolidation wrote nothing", {{"error", proposal.status().message()}});
  }
  return proposal;
}

Result<ConsolidationReport> Consolidator::runOnce(const CancelToken& cancel) {
  store::MemoryRepo repo(store_);
  store::KvRepo kv(store_);
  int64_t now_ms = store::nowMs();
  ConsolidationReport report;
  auto purged = repo.purgeExpired(now_ms);
  if (!purged.isOk()) return purged.status();
  report.purged = purged.value();
  auto input = readInput(summariesSeenAt(kv), now_ms);
  if (!input.isOk()) return input.status();
  if (input->summaries.empty() && input->episodes.empty()) {
    report.skipped = true;
    return report;
  }
  std::vector<int64_t> included;
  auto proposal = ask(consolidationRequest(input.value(), options_, &included), cancel);
  if (!proposal.isOk()) return proposal.status();
  auto applied = apply(repo, proposal.value(), input.value(), included, report);
  if (!applied.isOk()) return applied.status();
  if (Status s = repo.markConsolidated(included); !s.isOk()) return s;
  kv.set(kKvNamespace, kSummariesSeenKey, std::to_string(now_ms));
  applied->episodes = static_cast<int>(included.size());
  applied->summaries = static_cast<int>(input->summaries.size());
  return applied;
}

}  // namespace gantry::memory
