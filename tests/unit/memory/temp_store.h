#pragma once
// A fresh store in a per-process temporary directory, removed with the object.

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "store/store.h"

namespace gantry::testing {

class TempStore {
 public:
  TempStore() {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("gantry_memory_test_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto opened = store::Store::open(path());
    if (!opened.isOk()) throw std::runtime_error(opened.status().message());
    store_ = std::move(opened.value());
  }
  ~TempStore() {
    store_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  TempStore(const TempStore&) = delete;
  TempStore& operator=(const TempStore&) = delete;

  store::Store& store() { return *store_; }
  std::string path() const { return (dir_ / "gantry.db").string(); }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<store::Store> store_;
};

}  // namespace gantry::testing
