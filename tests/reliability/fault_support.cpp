#include "reliability/fault_support.h"

#include <Poco/Net/ServerSocket.h>

namespace gantry::faults {

std::string fakeMcpManifest(const std::string& args_toml) {
  return "[[server]]\nname = \"fake\"\ncommand = \"" + kFakeMcp + "\"\nargs = [" + args_toml +
         "]\n";
}

std::string toolCallLine(const std::string& name, const std::string& args_json,
                         const std::string& id) {
  std::string escaped;
  for (char c : args_json) escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
  return R"({"tool_calls":[{"id":")" + id + R"(","name":")" + name + R"(","arguments":")" +
         escaped + R"("}]})";
}

bool recordSound(const e2e::Workspace& workspace, std::string* why) {
  reliability::RecordProbe probe(workspace.data() + "/gantry.db");
  const std::string integrity = probe.integrity();
  const int64_t stuck = probe.stuckRows();
  *why = "integrity_check: " + integrity + ", stuck rows: " + std::to_string(stuck);
  return integrity == "ok" && stuck == 0;
}

std::uint16_t closedPort() {
  Poco::Net::ServerSocket probe(Poco::Net::SocketAddress("127.0.0.1", 0));
  return probe.address().port();
}

int status(const e2e::Env& env, std::string* out) {
  auto result = e2e::runGantry(env, "", {"status"}, 20s);
  *out = result.out + result.err;
  return result.code;
}

}  // namespace gantry::faults
