#include "config/config.h"

#include <catch2/catch.hpp>
#include <map>
#include <utility>

using gantry::config::load;

namespace {
gantry::config::EnvLookup env(std::map<std::string, std::string> values) {
  return [values = std::move(values)](std::string_view key) -> std::optional<std::string> {
    auto it = values.find(std::string(key));
    if (it == values.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}
std::string error(std::map<std::string, std::string> values) {
  auto c = load(env(std::move(values)));
  REQUIRE(!c.isOk());
  return c.status().message();
}
}  // namespace

TEST_CASE("an empty environment gives the documented defaults", "[config]") {
  auto c = load(env({}));
  REQUIRE(c.isOk());
  CHECK(c->channel == "telegram");
  CHECK(c->provider == "openai");
  CHECK(c->persona_dir == "/persona");
  CHECK(c->data_dir == "/data");
  CHECK(c->mcp_manifest == "/etc/gantry/mcp.toml");
  CHECK(c->history_max_messages == 200);
  CHECK(c->history_max_tokens == 128000);
  CHECK(c->tool_result_max_chars == 16000);
  CHECK(c->tool_max_iterations == 20);
  CHECK(c->tool_timeout_seconds == 120);
  CHECK(c->tool_schema_max_tokens == 0);
  CHECK(c->memory_enabled);
  CHECK(c->memory_backend == "builtin");
  CHECK(c->memory_consolidate_minutes == 30);
  CHECK(c->cron_enabled);
  CHECK(c->cron_tz == "UTC");
  CHECK(c->cron_max_jobs == 50);
  CHECK(c->cron_tick_seconds == 15);
  CHECK(c->watch_enabled);
  CHECK(c->watch_max == 50);
  CHECK(c->watch_min_seconds == 60);
  CHECK(!c->stream_replies);
  CHECK(c->tool_trace == gantry::config::TraceMode::kCompact);
  CHECK(c->coalesce_settle_ms == 2000);
  CHECK(c->spinup_notice_ms == 4000);
  CHECK(c->heartbeat_seconds == 30);
  CHECK(c->log_level == gantry::LogLevel::kInfo);
}

TEST_CASE("values are parsed with their types", "[config]") {
  auto c = load(env({{"CHANNEL", "stdio"},
                     {"HISTORY_MAX_MESSAGES", "12"},
                     {"STREAM_REPLIES", "true"},
                     {"TOOL_TRACE", "full"},
                     {"MEMORY_BACKEND", "mcp:notes"},
                     {"LOG_LEVEL", "debug"},
                     {"COALESCE_SETTLE_MS", "0"}}));
  REQUIRE(c.isOk());
  CHECK(c->channel == "stdio");
  CHECK(c->history_max_messages == 12);
  CHECK(c->stream_replies);
  CHECK(c->tool_trace == gantry::config::TraceMode::kFull);
  CHECK(c->memory_backend == "mcp:notes");
  CHECK(c->log_level == gantry::LogLevel::kDebug);
  CHECK(c->coalesce_settle_ms == 0);
}

TEST_CASE("a malformed value names the variable and what is accepted", "[config]") {
  CHECK(error({{"HISTORY_MAX_MESSAGES", "abc"}}) ==
        "HISTORY_MAX_MESSAGES: \"abc\" is not an integer in 2..100000");
  CHECK(error({{"TOOL_MAX_ITERATIONS", "0"}}) ==
        "TOOL_MAX_ITERATIONS: \"0\" is not an integer in 1..1000");
  CHECK(error({{"TOOL_TIMEOUT_SECONDS", "12x"}}).rfind("TOOL_TIMEOUT_SECONDS:", 0) == 0);
  CHECK(error({{"STREAM_REPLIES", "maybe"}}) ==
        "STREAM_REPLIES: \"maybe\" is not a boolean (true or false)");
  CHECK(error({{"TOOL_TRACE", "loud"}}) ==
        "TOOL_TRACE: \"loud\" is not one of: compact, full, off");
  CHECK(error({{"LOG_LEVEL", "trace"}}) ==
        "LOG_LEVEL: \"trace\" is not one of: debug, info, warn, error");
  CHECK(error({{"MEMORY_BACKEND", "mcp:"}}).rfind("MEMORY_BACKEND:", 0) == 0);
  CHECK(error({{"CHANNEL", "../evil"}}) ==
        "CHANNEL: \"../evil\" is not a module name ([a-z0-9_]+)");
}

TEST_CASE("a secret:// value fails boot naming the variable when there is no vault", "[config]") {
  CHECK(error({{"DATA_DIR", "secret://data"}}) ==
        "DATA_DIR: secret://data cannot be resolved here (no vault)");
  CHECK(error({{"CHANNEL", "secret://c"}}).rfind("CHANNEL: ", 0) == 0);
}

TEST_CASE("secret:// references are resolved through the vault lookup, anywhere in a value",
          "[config]") {
  gantry::config::SecretLookup secrets = [](std::string_view name) -> gantry::Result<std::string> {
    if (name == "dir") return std::string("/srv/data");
    return gantry::Status::error("not in the vault (gantry secret set " + std::string(name) + ")");
  };
  std::map<std::string, std::string> values{{"DATA_DIR", "secret://dir"},
                                            {"PERSONA_DIR", "secret://dir/persona"}};
  auto config = gantry::config::load(env(values), secrets);
  REQUIRE(config.isOk());
  CHECK(config->data_dir == "/srv/data");
  CHECK(config->persona_dir == "/srv/data/persona");
  values["MCP_MANIFEST"] = "secret://missing";
  auto missing = gantry::config::load(env(values), secrets);
  REQUIRE_FALSE(missing.isOk());
  CHECK(missing.status().message() ==
        "MCP_MANIFEST: secret://missing: not in the vault (gantry secret set missing)");
}

TEST_CASE("tool publishing defaults to deciding by size with a 6 h hold", "[config]") {
  auto c = load(env({}));
  REQUIRE(c.isOk());
  CHECK(c->tool_publish.empty());
  CHECK(c->tool_eager_max_tokens == 1000);
  CHECK(c->tool_enable_hold_seconds == 6 * 3600);
}

TEST_CASE("TOOL_ENABLE_HOLD takes seconds, minutes or hours", "[config]") {
  auto hold = [](const std::string& value) {
    auto c = load(env({{"TOOL_ENABLE_HOLD", value}, {"TOOL_PUBLISH", "lazy"}}));
    REQUIRE(c.isOk());
    CHECK(c->tool_publish == "lazy");
    return c->tool_enable_hold_seconds;
  };
  CHECK(hold("90") == 90);
  CHECK(hold("90s") == 90);
  CHECK(hold("30m") == 1800);
  CHECK(hold("2h") == 7200);
  CHECK(error({{"TOOL_ENABLE_HOLD", "6 hours"}}) ==
        "TOOL_ENABLE_HOLD: \"6 hours\" is not a duration such as 90s, 30m or 6h");
  CHECK(error({{"TOOL_ENABLE_HOLD", "0m"}}).rfind("TOOL_ENABLE_HOLD:", 0) == 0);
  CHECK(error({{"TOOL_PUBLISH", "sometimes"}}) ==
        "TOOL_PUBLISH: \"sometimes\" is not one of: lazy, eager");
}

TEST_CASE("WATCH_ENABLED, WATCH_MAX and WATCH_MIN_SECONDS are read and bounded", "[config]") {
  auto c = load(env({{"WATCH_ENABLED", "false"}, {"WATCH_MAX", "3"}, {"WATCH_MIN_SECONDS", "1"}}));
  REQUIRE(c.isOk());
  CHECK_FALSE(c->watch_enabled);
  CHECK(c->watch_max == 3);
  CHECK(c->watch_min_seconds == 1);
  CHECK(error({{"WATCH_MIN_SECONDS", "0"}}).find("WATCH_MIN_SECONDS") != std::string::npos);
  CHECK(error({{"WATCH_MAX", "many"}}).find("WATCH_MAX") != std::string::npos);
}
