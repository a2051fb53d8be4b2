#pragma once
/// A fresh scratch directory for a tool server test, removed on destruction.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace gantry::testing {

class ScratchDir final {
 public:
  explicit ScratchDir(const std::string& name) {
    auto base =
        std::filesystem::temp_directory_path() /
        ("gantry-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::remove_all(base);
    std::filesystem::create_directories(base);
    path_ = base.string();
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& relative) const { return path_ + "/" + relative; }

  /// Writes a file (creating its directories).
  void write(const std::string& relative, const std::string& content) const {
    const auto file = std::filesystem::path(path_) / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
  }
  std::string read(const std::string& relative) const {
    std::ifstream in(path_ + "/" + relative, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string path_;
};

}  // namespace gantry::testing
