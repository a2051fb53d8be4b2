// Measures memory_recall (the tool) and hydrationBlock latency over a store of 1k, 10k and
// 100k rows of synthetic text with a Zipf-like word distribution (common words match many
// rows, as in real conversation). Prints p50/p99 in milliseconds per operation.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "memory/hydration.h"
#include "memory/memory_tools.h"
#include "store/memory_repo.h"
#include "store/store.h"

namespace {

using Clock = std::chrono::steady_clock;

class Words {
 public:
  explicit Words(std::size_t vocabulary) : rng_(42) {
    std::vector<double> weights;
    for (std::size_t i = 0; i < vocabulary; ++i) {
      words_.push_back(word(i));
      weights.push_back(1.0 / static_cast<double>(i + 1));
    }
    pick_ = std::discrete_distribution<std::size_t>(weights.begin(), weights.end());
  }
  std::string sentence(int n) {
    std::string text;
    for (int i = 0; i < n; ++i) text += (i ? " " : "") + words_[pick_(rng_)];
    return text;
  }
  int between(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

 private:
  static std::string word(std::size_t i) {
    static const char* kSyllables[] = {"ka", "lo",  "mi", "ren", "to",
                                       "sa", "vel", "qu", "dor", "ni"};
    std::string w;
    do {
      w += kSyllables[i % 10];
      i /= 10;
    } while (i > 0);
    return w;
  }
  std::mt19937 rng_;
  std::vector<std::string> words_;
  std::discrete_distribution<std::size_t> pick_;
};

double percentile(std::vector<double> samples, double p) {
  std::sort(samples.begin(), samples.end());
  auto index = static_cast<std::size_t>(std::ceil(p * static_cast<double>(samples.size()))) - 1;
  return samples[std::min(index, samples.size() - 1)];
}

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

const char* kindFor(int roll) {
  if (roll < 40) return "episode";
  if (roll < 65) return "fact";
  if (roll < 80) return "preference";
  if (roll < 90) return "person";
  return "insight";
}

void fill(gantry::store::MemoryRepo& repo, Words& words, int rows, std::vector<double>* insert_ms) {
  int64_t now = gantry::store::nowMs();
  *insert_ms = measure(rows, [&](int) {
    std::string kind = kindFor(words.between(0, 99));
    int64_t expires = kind == "episode" ? now + words.between(-5, 30) * 86400000LL : 0;
    gantry::store::NewMemory row{kind,
                                 words.sentence(words.between(1, 3)),
                                 words.sentence(words.between(8, 20)),
                                 "chat",
                                 1.0,
                                 expires};
    if (!repo.insert(row).isOk()) std::abort();
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
    std::vector<std::string> messages;
    messages.reserve(300);
    for (int i = 0; i < 300; ++i) messages.push_back(words.sentence(words.between(4, 16)));
    gantry::tools::CallContext context;
    auto recall = measure(300, [&](int i) {
      tools.call("memory_recall", "{\"query\":\"" + messages[i] + "\"}", context);
    });
    auto hydrate = measure(300, [&](int i) { gantry::memory::hydrationBlock(repo, messages[i]); });
    int64_t now = gantry::store::nowMs();
    auto fts = measure(300, [&](int i) { repo.matchActive(messages[i], 60, now); });
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
