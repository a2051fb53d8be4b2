// The system message every call of a turn starts with (DESIGN 4 step 2).
#include "agent/prompt.h"

#include <catch2/catch.hpp>

using namespace gantry;

TEST_CASE("the system message is the persona, the framing, the listing and the summary",
          "[agent]") {
  const ChatMessage system = agent::systemMessage("You are Ada.", "[tools]", "they met");
  CHECK(system.role == Role::kSystem);
  CHECK(system.content.rfind("You are Ada.\n\n", 0) == 0);
  const auto framing = system.content.find(agent::kToolFraming);
  const auto listing = system.content.find("[tools]");
  const auto summary = system.content.find("they met");
  CHECK(framing < listing);
  CHECK(listing < summary);
  CHECK(summary != std::string::npos);
}

TEST_CASE("a system message without listing or summary ends with the framing", "[agent]") {
  const ChatMessage system = agent::systemMessage("p", "", "");
  CHECK(system.content == std::string("p\n\n") + agent::kToolFraming);
}

TEST_CASE(
    "with memory on, the system message frames the memory block as notes the persona "
    "outranks",
    "[agent]") {
  const ChatMessage system = agent::systemMessage("p", "", "", {.memory = true});
  CHECK(system.content ==
        std::string("p\n\n") + agent::kToolFraming + "\n\n" + agent::kMemoryFraming);
  CHECK(std::string(agent::kMemoryFraming).find("[memory]") != std::string::npos);
  CHECK(std::string(agent::kMemoryFraming).find("persona above outranks") != std::string::npos);
}

TEST_CASE("a scheduled turn's system message ends saying that [silent] posts nothing", "[agent]") {
  const ChatMessage owner = agent::systemMessage("p", "[tools]", "they met");
  const ChatMessage scheduled =
      agent::systemMessage("p", "[tools]", "they met", {.scheduled = true});
  CHECK(scheduled.content == owner.content + "\n\n" + agent::kScheduledFraming);
  CHECK(scheduled.content.find("[silent]") != std::string::npos);
  CHECK(owner.content.find("[silent]") == std::string::npos);
}

TEST_CASE("only a whole reply of [silent] is silent", "[agent]") {
  CHECK(agent::isSilentReply("[silent]"));
  CHECK(agent::isSilentReply("  [silent]\n"));
  CHECK_FALSE(agent::isSilentReply("[silent] but here is news"));
  CHECK_FALSE(agent::isSilentReply("Nothing new. [silent]"));
  CHECK_FALSE(agent::isSilentReply(""));
}
