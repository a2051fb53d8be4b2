#include "e2e/support/feed.h"

#include <filesystem>

namespace gantry::e2e {

void setFeed(const Workspace& ws, const std::string& items_json) {
  ws.write(std::string(kFeedFile) + ".tmp", items_json);
  std::filesystem::rename(ws.path() + "/" + kFeedFile + ".tmp", ws.path() + "/" + kFeedFile);
}

Env feedEnv(const Workspace& ws, int llm_port, const std::string& items_json) {
  ws.write(kFeedFile, items_json);
  const std::string server = GANTRY_BUILD_DIR "/tests/fakes/mcp/fake_mcp_server";
  ws.write("mcp.toml", "[[server]]\nname = \"feeds\"\ncommand = \"" + server +
                           "\"\nargs = [\"--feed-file\", \"" + ws.path() + "/" + kFeedFile +
                           "\"]\nsandbox = { read = [\"" + ws.path() + "/feed\"] }\n");
  Env env = stdioEnv(ws, llm_port);
  env["WATCH_MIN_SECONDS"] = "1";
  return env;
}

}  // namespace gantry::e2e
