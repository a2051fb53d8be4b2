#include "tools/support/server_process.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "sandbox/server_sandbox.h"

namespace gantry::testing {
namespace {

std::string toText(const Poco::Dynamic::Var& value) {
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(value, out);
  return out.str();
}

/// argv or envp for exec: the strings' own buffers, null-terminated.
std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

/// This process's environment with the extra "NAME=value" entries replacing their names.
std::vector<std::string> inheritedPlus(const std::vector<std::string>& extra) {
  auto replaced = [&](std::string_view entry) {
    for (const auto& e : extra) {
      if (entry.substr(0, entry.find('=') + 1) == e.substr(0, e.find('=') + 1)) return true;
    }
    return false;
  };
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!replaced(*e)) env.emplace_back(*e);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

/// The bundled servers run as gantry runs them: inside their MCP sandbox (docs/security.md),
/// here with the scratch folders under /tmp granted as a manifest would grant a root. Null
/// where the kernel offers no Landlock.
std::unique_ptr<sandbox::Ruleset> toolSandbox(const std::string& program) {
  auto abi = sandbox::landlockAbi();
  if (!abi.isOk()) return nullptr;
  sandbox::ServerPlan plan;
  plan.abi = abi.value();
  plan.state_dir = "/tmp/gantry-tool-state-" + std::to_string(::getpid());
  plan.grants.write = {"/tmp"};
  auto built = sandbox::buildRuleset(plan, program);
  if (!built.isOk()) throw std::runtime_error(built.status().message());
  return std::make_unique<sandbox::Ruleset>(std::move(built.value()));
}

/// Only async-signal-safe calls here: the test process has threads (its local servers).
[[noreturn]] void execChild(char* const* argv, char* const* envp, int in, int out, int ruleset) {
  ::dup2(in, STDIN_FILENO);
  ::dup2(out, STDOUT_FILENO);
  if (ruleset >= 0 && sandbox::enterRuleset(ruleset) != 0) ::_exit(126);
  ::execve(argv[0], argv, envp);
  ::_exit(127);
}

}  // namespace

std::string toolBinary(const std::string& name) {
  return std::string(GANTRY_BUILD_DIR) + "/" + name;
}

ServerProcess::ServerProcess(const std::string& program, const std::vector<std::string>& args,
                             const std::vector<std::string>& env) {
  std::vector<std::string> argv_strings = {program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  const auto argv = pointers(argv_strings);
  const auto env_strings = inheritedPlus(env);
  const auto envp = pointers(env_strings);
  int to_child[2];
  int from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe failed");
  }
  const auto ruleset = toolSandbox(program);
  pid_ = ::fork();
  if (pid_ == 0) {
    execChild(argv.data(), envp.data(), to_child[0], from_child[1], ruleset ? ruleset->fd() : -1);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  in_ = to_child[1];
  out_ = from_child[0];
  Poco::JSON::Object::Ptr params = new Poco::JSON::Object;
  params->set("protocolVersion", "2025-11-25");
  params->set("capabilities", Poco::JSON::Object::Ptr(new Poco::JSON::Object));
  request("initialize", params);
  send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
}

ServerProcess::~ServerProcess() {
  ::close(in_);
  ::close(out_);
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
}

std::string ServerProcess::readLine(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{out_, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return "";
    char chunk[65536];
    const ssize_t n = ::read(out_, chunk, sizeof chunk);
    if (n <= 0) return "";
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

bool ServerProcess::send(const std::string& line) {
  const std::string text = line + "\n";
  return ::write(in_, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

std::string ServerProcess::raw(const std::string& line) {
  return send(line) ? readLine(std::chrono::seconds(20)) : "";
}

std::string ServerProcess::request(const std::string& method, const Poco::JSON::Object::Ptr& params,
                                   std::chrono::milliseconds timeout) {
  Poco::JSON::Object::Ptr message = new Poco::JSON::Object;
  message->set("jsonrpc", "2.0");
  message->set("id", next_id_++);
  message->set("method", method);
  if (!params.isNull()) message->set("params", params);
  const std::string text = toText(message) + "\n";
  if (::write(in_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) return "";
  return readLine(timeout);
}

CallResult ServerProcess::call(const std::string& tool, const std::string& arguments_json) {
  Poco::JSON::Object::Ptr params = new Poco::JSON::Object;
  params->set("name", tool);
  params->set("arguments", Poco::JSON::Parser().parse(arguments_json));
  const auto line = request("tools/call", params);
  if (line.empty()) return {"(no response)", true};
  auto message = Poco::JSON::Parser().parse(line).extract<Poco::JSON::Object::Ptr>();
  if (message->has("error"))
    return {message->getObject("error")->getValue<std::string>("message"), true};
  auto result = message->getObject("result");
  auto content = result->getArray("content");
  return {content->getObject(0)->getValue<std::string>("text"), result->optValue("isError", false)};
}

std::vector<std::string> ServerProcess::tools() {
  auto line = request("tools/list", nullptr);
  auto message = Poco::JSON::Parser().parse(line).extract<Poco::JSON::Object::Ptr>();
  std::vector<std::string> names;
  auto tools = message->getObject("result")->getArray("tools");
  for (std::size_t i = 0; i < tools->size(); ++i)
    names.push_back(tools->getObject(i)->getValue<std::string>("name"));
  return names;
}

}  // namespace gantry::testing
