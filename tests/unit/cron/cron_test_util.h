#pragma once
/// Helpers shared by the cron tests: a fresh temp-file store per test.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "store/store.h"

namespace gantry::cron::test {

inline std::string tempDbPath(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("gantry_cron_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path p = dir / (name + ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p.string() + suffix);
  return p.string();
}

inline std::unique_ptr<store::Store> openStore(const std::string& path) {
  auto store = store::Store::open(path);
  INFO(store.status().message());
  REQUIRE(store.isOk());
  return std::move(store.value());
}

}  // namespace gantry::cron::test
