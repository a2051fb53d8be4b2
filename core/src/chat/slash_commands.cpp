#include "chat/slash_commands.h"

namespace gantry::chat {

const std::vector<SlashCommand>& slashCommands() {
  static const std::vector<SlashCommand> kCommands = {
      {"new", "", "start a fresh session (memory is kept)"},
      {"cancel", "", "stop the current turn"},
      {"status", "", "model, uptime, session size, tools, memory, last turn"},
      {"tools", "", "published tools with estimated tokens"},
      {"tokens", "", "the standing prompt broken down, estimated"},
      {"perf", "", "the last 10 turns: model, first token and tool ms, rounds, prompt tokens"},
      {"toolstats", "", "calls, errors and time per tool; repairs of what the model sent"},
      {"memstats", "", "memory rows by kind and state, conflicts, backlog, database size"},
      {"budget", "[+N]", "today's tokens against the daily cap; +N raises today's cap"},
      {"approval", "ID", "the call an approval is for, every argument in full"},
      {"approve", "ID", "let a tool that asked for approval run"},
      {"deny", "ID", "refuse a tool that asked for approval"},
      {"help", "", "this list"}};
  return kCommands;
}

std::string helpText() {
  std::string text = "Hi. Write to me as you would to a person. Commands:";
  for (const auto& c : slashCommands()) {
    text += "\n/" + std::string(c.name) + (c.args.empty() ? "" : " " + std::string(c.args)) +
            " — " + std::string(c.description);
  }
  return text;
}

std::vector<ChatCommand> menuCommands() {
  std::vector<ChatCommand> menu;
  menu.reserve(slashCommands().size());
  for (const auto& c : slashCommands()) {
    std::string description(c.description);
    if (!c.args.empty())
      description += " (/" + std::string(c.name) + " " + std::string(c.args) + ")";
    menu.push_back({std::string(c.name), std::move(description)});
  }
  return menu;
}

}  // namespace gantry::chat
