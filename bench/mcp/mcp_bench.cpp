// bench_mcp: the host's overhead on one tools/call round trip. Calls server-everything's
// echo N times through McpHost (supervisor, client, transport, result mapping), then N
// times from a minimal client that writes a request line and reads the answer line, and
// prints p50/p99/mean for both.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "log/log.h"
#include "mcp/child_process.h"
#include "mcp/host.h"

namespace {

using Clock = std::chrono::steady_clock;
using gantry::mcp::ChildProcess;

std::string everythingScript() {
  return std::string(GANTRY_SOURCE_DIR) +
         "/tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
}

void report(const char* label, std::vector<double> micros) {
  std::sort(micros.begin(), micros.end());
  double sum = 0;
  for (double m : micros) sum += m;
  const auto count = static_cast<double>(micros.size());
  const auto at = [&](double q) { return micros[static_cast<std::size_t>(q * (count - 1))]; };
  std::printf("%-8s calls=%zu p50=%.0f us p99=%.0f us mean=%.0f us\n", label, micros.size(),
              at(0.5), at(0.99), sum / count);
}

std::vector<double> throughHost(int calls) {
  gantry::mcp::ServerSpec spec;
  spec.name = "everything";
  spec.command = "node";
  spec.args = {everythingScript(), "stdio"};
  gantry::mcp::Manifest manifest;
  manifest.servers = {spec};
  auto host = gantry::mcp::McpHost::start(manifest, {});
  if (!host.isOk()) throw std::runtime_error(host.status().message());
  auto* server = host.value()->server("everything");
  gantry::tools::CallContext context;
  std::vector<double> micros;
  for (int i = 0; i < calls; ++i) {
    const auto start = Clock::now();
    auto result = server->call("everything__echo", R"({"message":"ping"})", context);
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    if (!result.ok) throw std::runtime_error(result.text);
  }
  return micros;
}

/// Reads one line from fd (the minimal client's whole framing).
std::string readLine(int fd, std::string& buffer) {
  while (true) {
    auto newline = buffer.find('\n');
    if (newline != std::string::npos) {
      auto line = buffer.substr(0, newline);
      buffer.erase(0, newline + 1);
      return line;
    }
    char chunk[65536];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0) throw std::runtime_error("server closed stdout");
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

void writeLine(int fd, const std::string& line) {
  const std::string text = line + "\n";
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    throw std::runtime_error("write failed");
  }
}

/// Reads lines until the one answering id (skipping notifications).
void awaitAnswer(int fd, std::string& buffer, int id) {
  const std::string needle = "\"id\":" + std::to_string(id) + "}";
  while (readLine(fd, buffer).find(needle) == std::string::npos) {
  }
}

std::vector<double> direct(int calls) {
  auto child =
      ChildProcess::spawn("node", {everythingScript(), "stdio"}, gantry::mcp::minimalEnvironment());
  if (!child.isOk()) throw std::runtime_error(child.status().message());
  auto& process = *child.value();
  std::string buffer;
  writeLine(
      process.stdinFd(),
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}})");
  awaitAnswer(process.stdoutFd(), buffer, 0);
  writeLine(process.stdinFd(), R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  std::vector<double> micros;
  for (int i = 1; i <= calls; ++i) {
    const auto start = Clock::now();
    writeLine(
        process.stdinFd(),
        R"({"jsonrpc":"2.0","id":)" + std::to_string(i) +
            R"(,"method":"tools/call","params":{"name":"echo","arguments":{"message":"ping"}}})");
    awaitAnswer(process.stdoutFd(), buffer, i);
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  process.stop(std::chrono::milliseconds(1000));
  return micros;
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::stoi(argv[1]) : 500;
  if (!std::filesystem::exists(everythingScript())) {
    std::cerr << "bench_mcp: run `npm ci --prefix tests/peers` first\n";
    return 1;
  }
  gantry::log::setLevel(gantry::LogLevel::kWarn);
  try {
    report("direct", direct(calls));
    report("host", throughHost(calls));
  } catch (const std::exception& e) {
    std::cerr << "bench_mcp: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
