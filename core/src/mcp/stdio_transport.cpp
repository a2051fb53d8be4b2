#include "mcp/stdio_transport.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "log/log.h"
#include "mcp/jsonrpc.h"

namespace gantry::mcp {
namespace {

/// Reads fd until EOF, passing each chunk on.
template <class OnChunk>
void pump(int fd, OnChunk on_chunk) {
  std::string buffer(std::size_t{64} * 1024, '\0');
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    on_chunk(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
}

using Clock = std::chrono::steady_clock;

/// Waits until the non-blocking fd takes more bytes; false once the deadline has passed.
bool waitWritable(int fd, Clock::time_point deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) return false;
  pollfd pfd{fd, POLLOUT, 0};
  int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
  return ready != 0 || Clock::now() < deadline;  // an error shows in the next write()
}

/// Writes all of text to the non-blocking fd by deadline; *written counts what went out.
Status writeBy(int fd, std::string_view text, Clock::time_point deadline, std::size_t* written) {
  while (*written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + *written, text.size() - *written);
    if (n > 0) {
      *written += static_cast<std::size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!waitWritable(fd, deadline)) {
        return Status::retry("the server stopped reading its input (write timed out)");
      }
    } else if (n < 0 && errno != EINTR) {
      return Status::retry("writing to the server failed: " + std::string(std::strerror(errno)));
    }
  }
  return Status::ok();
}

}  // namespace

StdioTransport::StdioTransport(StdioOptions options) : options_(std::move(options)) {
  // A child that dies makes our writes fail with EPIPE instead of killing the process.
  ::signal(SIGPIPE, SIG_IGN);
}

StdioTransport::~StdioTransport() { close(); }

// open and close may race (a stop while the server is starting): open_mutex_ orders them,
// and a transport closed before it opened stays closed.
Status StdioTransport::open(TransportHandler* handler) {
  std::lock_guard lock(open_mutex_);
  if (closing_) return Status::cancelled("the stdio transport is closed");
  handler_ = handler;
  std::optional<sandbox::Ruleset> ruleset;
  if (options_.sandbox) {
    auto program = findProgram(options_.command);
    if (!program.isOk()) return program.status();
    auto built = sandbox::buildRuleset(*options_.sandbox, program.value());
    if (!built.isOk()) return built.status();
    ruleset = std::move(built.value());
  }
  auto child = ChildProcess::spawn(options_.command, options_.args, options_.env,
                                   {true, ruleset ? &*ruleset : nullptr});
  if (!child.isOk()) return child.status();
  child_ = std::move(child.value());
  // Writes wait with poll() up to the call's deadline instead of blocking in write().
  ::fcntl(child_->stdinFd(), F_SETFL, ::fcntl(child_->stdinFd(), F_GETFL) | O_NONBLOCK);
  tokens_ = options_.stderr_lines_per_second * 5.0;
  refilled_ = std::chrono::steady_clock::now();
  stdout_thread_ = std::thread([this] { readStdout(); });
  stderr_thread_ = std::thread([this] { readStderr(); });
  return Status::ok();
}

// A line cut short by the deadline would run into the next one, so a partial write ends
// the child (the supervisor restarts it); a write that sent nothing leaves it alone.
Status StdioTransport::send(const std::string& text, std::optional<std::int64_t>,
                            std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + (timeout.count() > 0 ? timeout : kDefaultWriteTimeout);
  std::lock_guard lock(write_mutex_);
  if (!child_ || child_->stdinFd() < 0) return Status::retry("the server process is not running");
  std::string line = text;
  line.push_back('\n');
  std::size_t written = 0;
  Status status = writeBy(child_->stdinFd(), line, deadline, &written);
  if (!status.isOk() && written > 0) child_->signal(SIGKILL);
  return status;
}

void StdioTransport::readStdout() {
  jsonrpc::LineSplitter splitter(
      options_.line_cap, [this](std::string_view line) { handler_->onMessage(line); },
      [this](std::string_view head, std::string_view tail, std::size_t length) {
        auto id = jsonrpc::findResponseId(tail);
        if (!id) id = jsonrpc::findResponseId(head);
        handler_->onOversize(id, length);
      });
  pump(child_->stdoutFd(), [&](std::string_view chunk) { splitter.feed(chunk); });
  const auto code = child_->waitFor(std::chrono::milliseconds(closing_ ? 5000 : 2000));
  std::string reason = code ? "the server process exited with code " + std::to_string(*code)
                            : "the server closed its stdout";
  handler_->onClosed(reason);
}

void StdioTransport::readStderr() {
  jsonrpc::LineSplitter splitter(
      options_.stderr_line_max, [this](std::string_view line) { relayStderr(line); },
      [this](std::string_view head, std::string_view, std::size_t) {
        relayStderr(std::string(head) + "…");
      });
  pump(child_->stderrFd(), [&](std::string_view chunk) { splitter.feed(chunk); });
  if (suppressed_ > 0) {
    log::warn("mcp_stderr_suppressed",
              {{"server", options_.server}, {"lines", std::to_string(suppressed_)}});
  }
}

void StdioTransport::relayStderr(std::string_view line) {
  const auto now = std::chrono::steady_clock::now();
  const double rate = options_.stderr_lines_per_second;
  tokens_ =
      std::min(rate * 5.0, tokens_ + rate * std::chrono::duration<double>(now - refilled_).count());
  refilled_ = now;
  if (tokens_ < 1.0) {
    ++suppressed_;
    return;
  }
  tokens_ -= 1.0;
  std::string text(line.substr(0, options_.stderr_line_max));
  if (suppressed_ > 0) {
    log::warn("mcp_stderr_suppressed",
              {{"server", options_.server}, {"lines", std::to_string(suppressed_)}});
    suppressed_ = 0;
  }
  log::info("mcp_stderr", {{"server", options_.server}, {"line", text}});
}

void StdioTransport::joinReaders() {
  if (stdout_thread_.joinable()) stdout_thread_.join();
  if (stderr_thread_.joinable()) stderr_thread_.join();
}

void StdioTransport::close() {
  {
    std::lock_guard lock(open_mutex_);
    if (closing_.exchange(true) || !child_) return;
  }
  {
    std::lock_guard lock(write_mutex_);
    child_->closeStdin();
  }
  child_->stop(std::chrono::milliseconds(2000));
  joinReaders();
}

void StdioTransport::kill() {
  {
    std::lock_guard lock(open_mutex_);
    if (child_) child_->signal(SIGKILL);
  }
  close();
}

}  // namespace gantry::mcp
