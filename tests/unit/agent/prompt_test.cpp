// A model call's prompt holds the conversation's history for the call only: the messages
// are moved into it and back out, so the history must come back as it was.
#include "agent/prompt.h"

#include <catch2/catch.hpp>

using namespace gantry;

namespace {

std::vector<ChatMessage> history() {
  ChatMessage calls{Role::kAssistant, "", {}, {{"c1", "memory_recall", "{}", "sig"}}, {}, {}, "r"};
  return {{Role::kUser, "[memory]\n- (fact) a: b\n\nhello", {}, {}, {}, {}, {}},
          calls,
          {Role::kTool, "found", {}, {}, "c1", "memory_recall", {}},
          {Role::kAssistant, "hi there", {}, {}, {}, {}, {}}};
}

/// Every field of each message, one string a message.
std::vector<std::string> fields(const std::vector<ChatMessage>& messages) {
  std::vector<std::string> out;
  for (const auto& m : messages) {
    std::string line = std::to_string(static_cast<int>(m.role)) + "|" + m.content + "|" +
                       m.tool_call_id + "|" + m.name + "|" + m.reasoning;
    for (const auto& call : m.tool_calls) {
      line += "|" + call.id + "," + call.name + "," + call.arguments + "," + call.thought_signature;
    }
    out.push_back(line + "|" + std::to_string(m.images.size()));
  }
  return out;
}

}  // namespace

TEST_CASE("a prompt is the system message and then the history", "[agent]") {
  auto messages = history();
  const agent::Prompt prompt(agent::systemMessage("You are Ada.", "", "they met"), messages);
  const auto& sent = prompt.messages();
  REQUIRE(sent.size() == 5);
  CHECK(sent[0].role == Role::kSystem);
  CHECK(sent[0].content.rfind("You are Ada.\n\n", 0) == 0);
  CHECK(sent[0].content.find(agent::kToolFraming) != std::string::npos);
  CHECK(sent[0].content.find("they met") != std::string::npos);
  CHECK(fields({sent.begin() + 1, sent.end()}) == fields(history()));
}

TEST_CASE("the history comes back whole when the prompt goes", "[agent]") {
  auto messages = history();
  for (int call = 0; call < 3; ++call) {  // one prompt a model call, a turn's rounds
    { const agent::Prompt prompt(agent::systemMessage("p", "listing", ""), messages); }
    CHECK(fields(messages) == fields(history()));
  }
}
