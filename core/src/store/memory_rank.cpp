#include "store/memory_rank.h"

#include <sqlite3.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "store/prepared.h"

namespace gantry::store {
namespace {

/// Rows above this id are not kept: two bytes a row up to it (2 MiB at most).
constexpr int64_t kMaxKeptId = int64_t{1} << 20;
/// Word counts kept at most; past it they start again.
constexpr std::size_t kMaxCountedWords = 4096;

/// What bm25() works out once per query: the mean row length and each phrase's IDF.
struct QueryFigures {
  double mean_length = 0;
  std::vector<double> idf;
};

int countRow(const Fts5ExtensionApi*, Fts5Context*, void* rows) {
  ++*static_cast<int64_t*>(rows);
  return SQLITE_OK;
}

/// As FTS5's bm25(): IDF = log((N - n + 0.5) / (n + 0.5)), 1e-6 where that is not positive;
/// n from the arguments after the column weights when given, else counted as bm25() does.
int figure(const Fts5ExtensionApi* api, Fts5Context* fts, int argc, sqlite3_value** argv,
           QueryFigures& out) {
  sqlite3_int64 rows = 0, tokens = 0;
  int rc = api->xRowCount(fts, &rows);
  if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
  if (rc != SQLITE_OK) return rc;
  out.mean_length = static_cast<double>(tokens) / static_cast<double>(rows);
  const int columns = api->xColumnCount(fts);
  const int phrases = api->xPhraseCount(fts);
  for (int i = 0; i < phrases; ++i) {
    int64_t hits = 0;
    if (columns + i < argc) {
      hits = sqlite3_value_int64(argv[columns + i]);
    } else if (rc = api->xQueryPhrase(fts, i, &hits, countRow); rc != SQLITE_OK) {
      return rc;
    }
    double idf = std::log((static_cast<double>(rows) - static_cast<double>(hits) + 0.5) /
                          (static_cast<double>(hits) + 0.5));
    out.idf.push_back(idf <= 0.0 ? 1e-6 : idf);
  }
  return SQLITE_OK;
}

int rowLength(const Fts5ExtensionApi* api, Fts5Context* fts, MemoryRank& rank, int* tokens) {
  const int64_t id = api->xRowid(fts);
  if (const uint16_t known = rank.length(id); known != 0) {
    *tokens = known;
    return SQLITE_OK;
  }
  const int rc = api->xColumnSize(fts, -1, tokens);
  if (rc == SQLITE_OK) rank.remember(id, *tokens);
  return rc;
}

void bm25(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int argc,
          sqlite3_value** argv) {
  constexpr double k1 = 1.2;
  constexpr double b = 0.75;
  auto* figures = static_cast<QueryFigures*>(api->xGetAuxdata(fts, 0));
  if (figures == nullptr) {
    auto fresh = std::make_unique<QueryFigures>();
    if (int rc = figure(api, fts, argc, argv, *fresh); rc != SQLITE_OK) {
      sqlite3_result_error_code(ctx, rc);
      return;
    }
    figures = fresh.get();
    int rc = api->xSetAuxdata(fts, fresh.release(),
                              [](void* p) { delete static_cast<QueryFigures*>(p); });
    if (rc != SQLITE_OK) {  // xSetAuxdata has freed it
      sqlite3_result_error_code(ctx, rc);
      return;
    }
  }
  int tokens = 0;
  if (int rc = rowLength(api, fts, *static_cast<MemoryRank*>(api->xUserData(fts)), &tokens);
      rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  const double length_norm = k1 * (1 - b + b * tokens / figures->mean_length);
  const int columns = api->xColumnCount(fts);
  double score = 0;
  for (std::size_t i = 0; i < figures->idf.size(); ++i) {
    double frequency = 0;  // each instance of the phrase, weighted by its column
    Fts5PhraseIter it;
    int column = 0, offset = 0;
    int rc = api->xPhraseFirst(fts, static_cast<int>(i), &it, &column, &offset);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(ctx, rc);
      return;
    }
    for (; column >= 0; api->xPhraseNext(fts, &it, &column, &offset)) {
      frequency += column < argc && column < columns ? sqlite3_value_double(argv[column]) : 1.0;
    }
    score += figures->idf[i] * ((frequency * (k1 + 1.0)) / (frequency + length_norm));
  }
  sqlite3_result_double(ctx, score);
}

void onRowChange(void* rank, int, const char*, const char* table, sqlite3_int64 id) {
  if (std::strcmp(table, "memory_fts_docsize") == 0) static_cast<MemoryRank*>(rank)->forget(id);
  if (std::strcmp(table, "memory") == 0) static_cast<MemoryRank*>(rank)->forgetFacts(id);
}

fts5_api* fts5(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, nullptr) == SQLITE_OK) {
    sqlite3_bind_pointer(statement, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
    sqlite3_step(statement);
  }
  sqlite3_finalize(statement);
  return api;
}

}  // namespace

bool MemoryRank::install(sqlite3* db) {
  fts5_api* api = fts5(db);
  if (api == nullptr ||
      api->xCreateFunction(api, "gantry_bm25", this, bm25, nullptr) != SQLITE_OK) {
    return false;
  }
  sqlite3_update_hook(db, onRowChange, this);
  return true;
}

void MemoryRank::refresh(PreparedCache& prepared) {
  Query version(prepared, "PRAGMA data_version");
  if (!version.step()) return;
  if (version.integer(0) != data_version_) forgetAll();
  data_version_ = version.integer(0);
}

void MemoryRank::forgetAll() {
  lengths_.clear();
  word_rows_.clear();
  forgetAllFacts();
}

uint16_t MemoryRank::length(int64_t id) const {
  return id >= 0 && static_cast<std::size_t>(id) < lengths_.size()
             ? lengths_[static_cast<std::size_t>(id)]
             : 0;
}

void MemoryRank::remember(int64_t id, int tokens) {
  if (id < 0 || id >= kMaxKeptId || tokens <= 0 || tokens > std::numeric_limits<uint16_t>::max())
    return;
  const auto at = static_cast<std::size_t>(id);
  if (at >= lengths_.size()) lengths_.resize(at + 1);
  lengths_[at] = static_cast<uint16_t>(tokens);
}

void MemoryRank::forget(int64_t id) {
  if (id >= 0 && static_cast<std::size_t>(id) < lengths_.size()) {
    lengths_[static_cast<std::size_t>(id)] = 0;
  }
  if (!word_rows_.empty()) word_rows_.clear();  // a rebuild calls this once a row
}

std::optional<int64_t> MemoryRank::wordRows(const std::string& word) const {
  auto it = word_rows_.find(word);
  return it == word_rows_.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

void MemoryRank::rememberWordRows(const std::string& word, int64_t rows) {
  if (word_rows_.size() >= kMaxCountedWords) word_rows_.clear();
  word_rows_[word] = rows;
}

const RowFacts* MemoryRank::facts(int64_t id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= facts_.size()) return nullptr;
  const RowFacts& facts = facts_[static_cast<std::size_t>(id)];
  return facts.known() ? &facts : nullptr;
}

void MemoryRank::rememberFacts(int64_t id, const RowFacts& facts) {
  if (id < 0 || id >= kFactsIdLimit || !facts.known()) return;
  const auto at = static_cast<std::size_t>(id);
  if (at >= facts_.size()) {
    // Rows are added one at a time: a sixteenth of room, not the vector's doubling.
    if (at >= facts_.capacity()) facts_.reserve(at + 1 + at / 16);
    facts_.resize(at + 1);
  }
  facts_[at] = facts;
}

void MemoryRank::forgetFacts(int64_t id) {
  if (id >= 0 && static_cast<std::size_t>(id) < facts_.size()) {
    facts_[static_cast<std::size_t>(id)] = RowFacts{};
  }
}

void MemoryRank::forgetAllFacts() {
  facts_.clear();
  facts_read_ = false;
}

}  // namespace gantry::store
