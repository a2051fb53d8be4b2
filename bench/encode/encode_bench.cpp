// Encoding a 200-message chat request (~100 KB): the provider's RapidJSON encoder against
// the same request built with Poco::JSON. Prints microseconds per encode (p50, p99).
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <vector>

#include "openai_api.h"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<gantry::ChatMessage> conversation() {
  std::vector<gantry::ChatMessage> messages;
  messages.push_back({gantry::Role::kSystem, std::string(4000, 'p'), {}, {}, {}, {}, {}});
  for (int i = 0; i < 199; ++i) {
    std::string text =
        "message " + std::to_string(i) + ": " + std::string(480, 'x') + " \"quoted\"\n";
    messages.push_back(
        {i % 2 ? gantry::Role::kAssistant : gantry::Role::kUser, text, {}, {}, {}, {}, {}});
  }
  return messages;
}

std::string pocoEncode(const std::vector<gantry::ChatMessage>& messages) {
  Poco::JSON::Object request(Poco::JSON_PRESERVE_KEY_ORDER);
  request.set("model", "bench");
  Poco::JSON::Array array;
  for (const auto& m : messages) {
    Poco::JSON::Object object(Poco::JSON_PRESERVE_KEY_ORDER);
    object.set("role", gantry::roleName(m.role));
    object.set("content", m.content);
    array.add(object);
  }
  request.set("messages", array);
  std::ostringstream out;
  request.stringify(out);
  return out.str();
}

template <class Fn>
void measure(const char* name, Fn&& fn) {
  std::vector<double> us;
  std::size_t bytes = 0;
  for (int i = 0; i < 300; ++i) {
    auto start = Clock::now();
    bytes = fn();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  std::sort(us.begin(), us.end());
  std::printf("%-10s %7zu bytes  p50 %8.1f us  p99 %8.1f us\n", name, bytes, us[us.size() / 2],
              us[us.size() * 99 / 100]);
}

}  // namespace

int main() {
  auto messages = conversation();
  gantry::ChatRequest request;
  request.messages = &messages;
  gantry::openai::RequestOptions options;
  options.model = "bench";
  measure("rapidjson",
          [&] { return gantry::openai::encodeRequest(request, options).value().size(); });
  measure("poco", [&] { return pocoEncode(messages).size(); });
  return 0;
}
