#include "persona/persona.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace gantry::persona {
namespace {

constexpr std::array<const char*, 4> kFixedOrder = {"IDENTITY.md", "SOUL.md", "USER.md",
                                                    "TOOLS.md"};

std::vector<std::string> orderedFiles(const fs::path& dir, std::error_code& ec) {
  std::vector<std::string> rest;
  std::vector<std::string> fixed;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".md") continue;
    std::string name = entry.path().filename().string();
    if (std::find(kFixedOrder.begin(), kFixedOrder.end(), name) == kFixedOrder.end()) {
      rest.push_back(name);
    }
  }
  for (const char* name : kFixedOrder) {
    if (fs::is_regular_file(dir / name)) fixed.emplace_back(name);
  }
  std::sort(rest.begin(), rest.end());
  fixed.insert(fixed.end(), rest.begin(), rest.end());
  return fixed;
}

bool readFile(const fs::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *out = buffer.str();
  return true;
}

}  // namespace

Result<Persona> load(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::error("PERSONA_DIR: " + dir +
                         " is not a directory (create it with gantry init)");
  }
  Persona persona;
  for (const auto& name : orderedFiles(dir, ec)) {
    std::string content;
    if (!readFile(fs::path(dir) / name, &content)) {
      return Status::error("PERSONA_DIR: cannot read " + (fs::path(dir) / name).string());
    }
    if (content.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    if (name == "USER.md") persona.user = content;
    if (!persona.text.empty()) persona.text += "\n\n";
    persona.text.append("# ").append(name).append("\n").append(content);
    persona.files.push_back(name);
  }
  if (ec) return Status::error("PERSONA_DIR: cannot list " + dir + ": " + ec.message());
  if (persona.files.empty()) {
    return Status::error("PERSONA_DIR: " + dir + " has no non-empty *.md files (IDENTITY.md, " +
                         "SOUL.md, USER.md, TOOLS.md, …)");
  }
  return persona;
}

}  // namespace gantry::persona
