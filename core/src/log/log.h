#pragma once
/// JSON-lines logging on stderr: {"ts":…,"level":…,"msg":…,<fields>}. Stdout belongs to the
/// REPL and command output, never to logs.

#include <cstdint>
#include <string>
#include <string_view>

#include "gantry/host.h"

namespace gantry::log {

/// Sets the lowest level written. Thread-safe.
void setLevel(LogLevel level);
LogLevel level();
/// Parses "debug|info|warn|error"; false on anything else.
bool parseLevel(std::string_view text, LogLevel* out);

/// Registers a secret value (and its common encodings, see Redactor) to be replaced by
/// "[redacted:NAME]" in every later line. Values shorter than 4 characters are ignored (they
/// would redact ordinary words). Thread-safe.
void addSecret(const std::string& value, const std::string& name);
/// Returns text with every registered secret replaced. Thread-safe.
std::string redact(std::string text);
/// How many bytes at the end of text may be the start of a secret (Redactor::partialTail):
/// a stream shows text only up to there until it knows.
std::size_t redactionHoldBack(std::string_view text);

/// ms since the epoch as UTC to the second, "2026-12-01T09:30:00Z" (for command output).
std::string isoUtc(int64_t ms);

/// Writes one line if level passes. Thread-safe: lines never interleave.
void write(LogLevel level, std::string_view msg, const LogFields& fields = {});

inline void debug(std::string_view msg, const LogFields& f = {}) {
  write(LogLevel::kDebug, msg, f);
}
inline void info(std::string_view msg, const LogFields& f = {}) { write(LogLevel::kInfo, msg, f); }
inline void warn(std::string_view msg, const LogFields& f = {}) { write(LogLevel::kWarn, msg, f); }
inline void error(std::string_view msg, const LogFields& f = {}) {
  write(LogLevel::kError, msg, f);
}

/// Boot (DESIGN 3: a failed boot prints one line): from holdRecords() on, records are kept
/// instead of written, until releaseHeld() writes them (boot succeeded) or dropHeld() drops
/// them (boot failed; its one line says why). At most 1000 are kept. Thread-safe; the tap
/// still sees each record as it is made.
void holdRecords();
void releaseHeld();
void dropHeld();

/// When the REPL owns the terminal: from now on every record goes to the file at path
/// (appended; past max_bytes it is renamed to path.1, replacing the one before, and a new file
/// begins), and only warnings and errors reach stderr, each as one readableLine(). An error
/// when the file cannot be opened; nothing changes then. Thread-safe.
Status toFile(const std::string& path, std::uintmax_t max_bytes);
/// A record as one line for a person: "warning: mcp_server_down (name=fetch, error=…)".
std::string readableLine(LogLevel level, std::string_view msg, const LogFields& fields);

/// Escapes text as the inside of a JSON string literal (no quotes added).
std::string jsonEscape(std::string_view text);

/// A hook that also sees every written record (e.g. Telegram error reporting). Called
/// after the line is written, outside the log lock; must not log at the same level.
using Tap = void (*)(void* ctx, LogLevel level, std::string_view line);
void setTap(Tap tap, void* ctx);

}  // namespace gantry::log
