#pragma once
/// The slash commands every channel answers (DESIGN 4.3), in one table: /help lists it, and
/// chat platforms that show a command menu (Telegram's setMyCommands) register it.

#include <string>
#include <string_view>
#include <vector>

#include "gantry/channel.h"

namespace gantry::chat {

struct SlashCommand {
  std::string_view name;  ///< without the slash: lowercase letters, digits, underscores
  std::string_view args;  ///< "ID", "[+N]", or "" when it takes none
  std::string_view description;
};

/// Every command, in the order /help lists them.
const std::vector<SlashCommand>& slashCommands();

/// The /help reply.
std::string helpText();

/// The table as a channel's command menu (Channel::offerCommands); each description says
/// what an argument is.
std::vector<ChatCommand> menuCommands();

}  // namespace gantry::chat
