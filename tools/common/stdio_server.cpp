#include "common/stdio_server.h"

#include <unistd.h>

#include <cerrno>
#include <iostream>

#include "mcp/jsonrpc.h"

namespace gantry::toolserver {
namespace {

constexpr int kInvalidRequest = -32600;
constexpr std::size_t kMaxLine = std::size_t{8} * 1024 * 1024;

void writeLine(const std::string& line) { std::cout << line << '\n' << std::flush; }

}  // namespace

int StdioServer::run(int fd) const {
  mcp::jsonrpc::LineSplitter splitter(
      kMaxLine,
      [this](std::string_view line) {
        if (line.empty() || line == "\r") return;
        if (auto reply = handle(line)) writeLine(*reply);
      },
      [](std::string_view, std::string_view, std::size_t length) {
        writeLine(mcp::jsonrpc::errorResponse(
            {}, kInvalidRequest, "message of " + std::to_string(length) + " bytes is too large"));
      });
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) return 0;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return 1;
    splitter.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
  }
}

}  // namespace gantry::toolserver
