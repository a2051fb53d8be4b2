#pragma once
// A chat service over the agent fixture and a fake channel, for the chat tests.

#include <memory>
#include <string>
#include <vector>

#include "chat/chat_service.h"
#include "fakes/fake_channel.h"
#include "unit/agent/agent_fixture.h"
#include "unit/chat/manual_settle_clock.h"

namespace gantry::testing {

inline ChannelCaps editable() {
  ChannelCaps caps;
  caps.can_edit = true;
  return caps;
}

/// A chat service over the agent fixture and a fake channel, settling bubbles for the default
/// 2000 ms on a manual clock (a test advances it); no spin-up notice unless asked for.
struct ChatFixture : AgentFixture {
  FakeChannel channel;
  ManualSettleClock clock;
  chat::ChatOptions chat_options;
  std::unique_ptr<chat::ChatService> service_;

  explicit ChatFixture(ChannelCaps caps = {}) : channel(caps) {
    chat_options.settle_clock = &clock;
    chat_options.stream.spinup_ms = 0;
  }
  chat::ChatService& service() {
    if (!service_) {
      chat::CommandTexts texts{
          {"/status", [](const std::string& chat) { return "status of " + chat; }},
          {"/tools", [](const std::string&) { return "lookup ~10 tokens"; }},
          {"/tokens", [](const std::string& chat) { return "tokens of " + chat; }}};
      service_ = std::make_unique<chat::ChatService>(agent(), channel, temp.store(), chat_options,
                                                     std::move(texts), &approvals);
    }
    return *service_;
  }
  void say(const std::string& text) { service().onMessage(FakeChannel::message(text)); }
  /// The user messages of the chat's history, as recorded.
  std::vector<std::string> userMessages() {
    std::vector<std::string> out;
    for (const auto& m : record()) {
      if (m.role == Role::kUser) out.push_back(m.content);
    }
    return out;
  }
};

}  // namespace gantry::testing
