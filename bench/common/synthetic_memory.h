#pragma once
// Synthetic memory rows and messages for the benchmarks: words follow a Zipf-like
// distribution (common words match many rows, as in real conversation), from a fixed seed so
// every run stores the same rows.

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "store/memory_repo.h"
#include "store/store.h"

namespace gantry::bench {

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

/// A row as the model would store it: mostly episodes (some already expired) and facts.
inline store::NewMemory memoryRow(Words& words, int64_t now_ms) {
  const int roll = words.between(0, 99);
  const char* kind = roll < 40   ? "episode"
                     : roll < 65 ? "fact"
                     : roll < 80 ? "preference"
                     : roll < 90 ? "person"
                                 : "insight";
  int64_t expires = roll < 40 ? now_ms + words.between(-5, 30) * 86400000LL : 0;
  return {kind,
          words.sentence(words.between(1, 3)),
          words.sentence(words.between(8, 20)),
          "chat",
          1.0,
          expires};
}

}  // namespace gantry::bench
