#pragma once
// A new store file of the given name in this process's temporary directory (an earlier one
// of that name is removed first).

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "store/store.h"

namespace gantry::testing {

inline std::unique_ptr<store::Store> freshStore(const char* name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("gantry_store_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / name);
  auto s = store::Store::open((dir / name).string());
  REQUIRE(s.isOk());
  return std::move(s.value());
}

}  // namespace gantry::testing
