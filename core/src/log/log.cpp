#include "log/log.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <vector>

#include "log/redactor.h"

namespace gantry::log {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::mutex g_mutex;
Redactor g_redactor;
std::atomic<Tap> g_tap{nullptr};
std::atomic<void*> g_tap_ctx{nullptr};
/// One record in both forms: the JSON line and, at warn and above, the readable one.
struct Record {
  LogLevel level;
  std::string json;
  std::string readable;
};
// Boot's records, while held (under g_mutex); bounded, the oldest kept.
constexpr std::size_t kMaxHeld = 1000;
bool g_holding = false;
std::vector<Record> g_held;
// The log file of a terminal REPL (under g_mutex); null: records go to stderr as JSON.
std::FILE* g_file = nullptr;
std::string g_file_path;
std::uintmax_t g_file_max = 0;
std::uintmax_t g_file_size = 0;

const char* levelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kError: return "error";
  }
  return "info";
}

std::string timestamp() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms.count()));
  return buf;
}

const char* readableName(LogLevel level) {
  return level == LogLevel::kError ? "error" : level == LogLevel::kWarn ? "warning" : "note";
}

// Past its cap the file becomes path.1 and a new one begins; a failed rename truncates it.
// Should the file not reopen, later records go to stderr as JSON again.
void rotateLocked() {
  std::fclose(g_file);
  g_file = nullptr;
  const std::string old = g_file_path + ".1";
  const bool moved = std::rename(g_file_path.c_str(), old.c_str()) == 0;
  g_file = std::fopen(g_file_path.c_str(), moved ? "ae" : "we");
  g_file_size = 0;
}

// Where a record goes once it is not held. Called with g_mutex held.
void emitLocked(const Record& record) {
  if (!g_file) {
    std::fwrite(record.json.data(), 1, record.json.size(), stderr);
    return;
  }
  std::fwrite(record.json.data(), 1, record.json.size(), g_file);
  std::fflush(g_file);
  g_file_size += record.json.size();
  if (g_file_size > g_file_max) rotateLocked();
  if (record.level >= LogLevel::kWarn) {
    std::fwrite(record.readable.data(), 1, record.readable.size(), stderr);
  }
}

}  // namespace

std::string readableLine(LogLevel level, std::string_view msg, const LogFields& fields) {
  std::string line = std::string(readableName(level)) + ": " + std::string(msg);
  std::string details;
  for (const auto& [key, value] : fields) {
    details.append(details.empty() ? "" : ", ").append(key).append("=").append(value);
  }
  if (!details.empty()) line += " (" + details + ")";
  for (char& c : line) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';  // one line, whatever a field held
  }
  return line + "\n";
}

Status toFile(const std::string& path, std::uintmax_t max_bytes) {
  std::FILE* file = std::fopen(path.c_str(), "ae");
  if (!file) return Status::error(path + ": " + std::strerror(errno));
  std::fseek(file, 0, SEEK_END);
  const long size = std::ftell(file);
  std::lock_guard lock(g_mutex);
  if (g_file) std::fclose(g_file);
  g_file = file;
  g_file_path = path;
  g_file_max = max_bytes;
  g_file_size = size > 0 ? static_cast<std::uintmax_t>(size) : 0;
  return Status::ok();
}

std::string isoUtc(int64_t ms) {
  const std::time_t seconds = ms / 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

void setLevel(LogLevel level) { g_level = static_cast<int>(level); }
LogLevel level() { return static_cast<LogLevel>(g_level.load()); }

bool parseLevel(std::string_view text, LogLevel* out) {
  static constexpr std::pair<std::string_view, LogLevel> kLevels[] = {{"debug", LogLevel::kDebug},
                                                                      {"info", LogLevel::kInfo},
                                                                      {"warn", LogLevel::kWarn},
                                                                      {"error", LogLevel::kError}};
  for (const auto& [name, value] : kLevels) {
    if (name == text) {
      *out = value;
      return true;
    }
  }
  return false;
}

void addSecret(const std::string& value, const std::string& name) {
  std::lock_guard lock(g_mutex);
  g_redactor.add(name, value);
}

std::string redact(std::string text) {
  std::lock_guard lock(g_mutex);
  return g_redactor.apply(std::move(text));
}

std::size_t redactionHoldBack(std::string_view text) {
  std::lock_guard lock(g_mutex);
  return g_redactor.partialTail(text);
}

std::string jsonEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

void write(LogLevel lvl, std::string_view msg, const LogFields& fields) {
  if (static_cast<int>(lvl) < g_level.load()) return;
  std::string line = "{\"ts\":\"" + timestamp() + "\",\"level\":\"" + levelName(lvl) +
                     "\",\"msg\":\"" + jsonEscape(msg) + "\"";
  for (const auto& [key, value] : fields) {
    line += ",\"" + jsonEscape(key) + "\":\"" + jsonEscape(value) + "\"";
  }
  line += "}\n";
  Record record{lvl, redact(std::move(line)), {}};
  if (lvl >= LogLevel::kWarn) record.readable = redact(readableLine(lvl, msg, fields));
  {
    std::lock_guard lock(g_mutex);
    if (g_holding) {
      if (g_held.size() < kMaxHeld) g_held.push_back(record);
    } else {
      emitLocked(record);
      std::fflush(stderr);
    }
  }
  if (Tap tap = g_tap.load()) tap(g_tap_ctx.load(), lvl, record.json);
}

void holdRecords() {
  std::lock_guard lock(g_mutex);
  g_holding = true;
}

void releaseHeld() {
  std::lock_guard lock(g_mutex);
  for (const auto& record : g_held) emitLocked(record);
  std::fflush(stderr);
  g_held.clear();
  g_holding = false;
}

void dropHeld() {
  std::lock_guard lock(g_mutex);
  g_held.clear();
  g_holding = false;
}

void setTap(Tap tap, void* ctx) {
  g_tap_ctx = ctx;
  g_tap = tap;
}

}  // namespace gantry::log
