#pragma once
/// Helpers shared by the watch tests: a fresh temp-file store per test, a settable clock.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "store/store.h"

namespace gantry::watch::test {

inline std::string tempDbPath(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("gantry_watch_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path p = dir / (name + ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p.string() + suffix);
  return p.string();
}

inline std::unique_ptr<store::Store> openStore(const std::string& name) {
  auto store = store::Store::open(tempDbPath(name));
  INFO(store.status().message());
  REQUIRE(store.isOk());
  return std::move(store.value());
}

constexpr int64_t kMinute = 60'000;
constexpr int64_t kHour = 60 * kMinute;
// 2026-11-30T22:40:00Z.
constexpr int64_t kNow = 1796078400000;

}  // namespace gantry::watch::test
