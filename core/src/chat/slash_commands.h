#pragma once
/// The slash commands every channel answers (DESIGN 4.3), in one table: /help lists it, and
/// chat platforms that show a command menu (Telegram's setMyCommands) register it.

#include <string>
#include <string_view>
#include <vector>

namespace gantry::chat {

struct SlashCommand {
  std::string_view name;  ///< without the slash: lowercase letters, digits, underscores
  std::string_view args;  ///< "ID", or "" when it takes none
  std::string_view description;
};

/// Every command, in the order /help lists them.
const std::vector<SlashCommand>& slashCommands();

/// The /help reply.
std::string helpText();

/// The table for a channel module, one command a line: `name<TAB>description` (the
/// description says what an argument is). Channels reach it as the configuration key
/// kSlashCommandsKey.
std::string slashCommandLines();

/// The configuration key under which the host hands channel modules slashCommandLines().
inline constexpr std::string_view kSlashCommandsKey = "GANTRY_SLASH_COMMANDS";

}  // namespace gantry::chat
