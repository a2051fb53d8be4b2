// Measures memory_recall (the tool) and hydrationBlock latency over a store of 1k, 10k and
// 100k rows of synthetic text with a Zipf-like word distribution (common words match many
// rows, as in real conversation). Prints p50/p99 in milliseconds per operation.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/log_figures.h"
#include "common/synthetic_memory.h"
#include "memory/hydration.h"
#include "memory/memory_tools.h"
#include "store/memory_repo.h"
#include "store/store.h"

namespace {

using Clock = std::chrono::steady_clock;
using gantry::bench::percentile;
using gantry::bench::Words;

template <class Fn>
std::vector<double> measure(int runs, Fn&& fn) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    auto start = Clock::now();
    fn(i);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return ms;
}

void fill(gantry::store::MemoryRepo& repo, Words& words, int rows, std::vector<double>* insert_ms) {
  int64_t now = gantry::store::nowMs();
  *insert_ms = measure(rows, [&](int) {
    if (!repo.insert(gantry::bench::memoryRow(words, now)).isOk()) std::abort();
  });
}

void report(int rows, const char* op, const std::vector<double>& ms) {
  std::printf("%7d  %-10s  p50 %8.3f ms  p99 %8.3f ms  (n=%zu)\n", rows, op, percentile(ms, 0.50),
              percentile(ms, 0.99), ms.size());
}

void bench(int rows) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("gantry_bench_memory_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    auto store = gantry::store::Store::open((dir / "gantry.db").string());
    if (!store.isOk()) std::abort();
    gantry::store::MemoryRepo repo(*store.value());
    gantry::memory::MemoryTools tools(repo);
    Words words(5000);
    std::vector<double> insert_ms;
    fill(repo, words, rows, &insert_ms);
    // Each operation gets its own messages: the repository keeps the words' row counts, and
    // a pass over messages an earlier pass already asked would find all of them counted.
    auto messages = [&words] {
      std::vector<std::string> out;
      out.reserve(300);
      for (int i = 0; i < 300; ++i) out.push_back(words.sentence(words.between(4, 16)));
      return out;
    };
    gantry::tools::CallContext context;
    auto recall_messages = messages();
    auto recall = measure(300, [&](int i) {
      tools.call("memory_recall", "{\"query\":\"" + recall_messages[i] + "\"}", context);
    });
    auto hydrate_messages = messages();
    auto hydrate =
        measure(300, [&](int i) { gantry::memory::hydrationBlock(repo, hydrate_messages[i]); });
    int64_t now = gantry::store::nowMs();
    auto fts_messages = messages();
    // The first 60 active hits, whole, in the order FTS5 ranks them.
    auto by_relevance = [](const gantry::store::MemoryRow& row) { return row.relevance; };
    auto fts =
        measure(300, [&](int i) { repo.bestActive(fts_messages[i], 60, 60, now, by_relevance); });
    auto active = measure(300, [&](int) {
      repo.active({"fact", "preference", "person"}, 60, now);
    });
    report(rows, "insert", insert_ms);
    report(rows, "fts-match", fts);
    report(rows, "active", active);
    report(rows, "recall", recall);
    report(rows, "hydration", hydrate);
  }
  fs::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {1000, 10000, 100000};
  if (argc > 1) sizes = {std::atoi(argv[1])};
  std::printf("rows     operation   latency (300 queries of 4-16 words; insert = memory row)\n");
  for (int rows : sizes) bench(rows);
  return 0;
}
