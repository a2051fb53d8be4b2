#include "workspace/path_check.h"

#include "common/utf8.h"

namespace gantry::workspace {
namespace {

using toolserver::printable;

Status refuse(const std::string& path, const std::string& why) {
  return Status::error("path '" + printable(path) + "': " + why);
}

bool hasControl(const std::string& path) {
  for (unsigned char c : path) {
    if (c < 0x20 || c == 0x7F) return true;
  }
  return false;
}

Status checkText(const std::string& path) {
  if (path.find('\0') != std::string::npos) return refuse(path, "contains a NUL byte");
  if (hasControl(path)) return refuse(path, "contains a control character (newline, tab...)");
  if (!toolserver::isValidUtf8(path)) return refuse(path, "is not valid UTF-8");
  if (!path.empty() && path.front() == '/') {
    return refuse(path, "is absolute; paths are relative to the workspace root");
  }
  return Status::ok();
}

}  // namespace

std::string RelPath::text() const {
  if (parts.empty()) return ".";
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : "/") + part;
  return out;
}

RelPath RelPath::parent() const {
  RelPath up = *this;
  if (!up.parts.empty()) up.parts.pop_back();
  return up;
}

Result<RelPath> checkPath(const std::string& path) {
  if (auto status = checkText(path); !status.isOk()) return status;
  RelPath out;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string part = path.substr(start, end - start);
    if (part == "..") return refuse(path, "'..' leaves the workspace root");
    if (!part.empty() && part != ".") out.parts.push_back(part);
    start = end + 1;
  }
  return out;
}

Result<RelPath> child(const RelPath& dir, const std::string& name) {
  if (name.find('/') != std::string::npos || name == "." || name == "..") {
    return refuse(name, "is not a single name");
  }
  auto joined = checkPath(dir.isRoot() ? name : dir.text() + "/" + name);
  if (!joined.isOk()) return joined.status();
  return joined;
}

}  // namespace gantry::workspace
