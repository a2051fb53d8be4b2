#include "e2e/support/request_json.h"

namespace gantry::e2e {

std::string jsonArray(const std::string& body, const std::string& key) {
  const std::string marker = "\"" + key + "\":[";
  auto at = body.find(marker);
  if (at == std::string::npos) return {};
  const auto start = at + marker.size() - 1;
  int depth = 0;
  bool in_string = false;
  for (auto i = start; i < body.size(); ++i) {
    char c = body[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') ++depth;
    if ((c == ']' || c == '}') && --depth == 0) return body.substr(start, i + 1 - start);
  }
  return {};
}

}  // namespace gantry::e2e
