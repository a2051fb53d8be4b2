#pragma once
/// The stdio channel: a REPL on a terminal, a strict line pipe otherwise (DESIGN 5.4).
/// Logs never go to stdout; stdout carries replies (and the prompt on a terminal).

#include <unistd.h>

#include <atomic>
#include <mutex>

#include "gantry/channel.h"
#include "gantry/host.h"
#include "line_reader.h"

namespace gantry::stdio {

class StdioChannel final : public Channel {
 public:
  /// jsonl: STDIO_FORMAT=jsonl. interactive: stdin is a terminal.
  StdioChannel(Host& host, bool jsonl, bool interactive);
  ~StdioChannel() override;
  StdioChannel(const StdioChannel&) = delete;
  StdioChannel& operator=(const StdioChannel&) = delete;

  ChannelCaps caps() const noexcept override;
  Status run(InboundSink& sink) noexcept override;
  void stop() noexcept override;
  Result<std::string> send(const std::string& chat_id, std::string_view text) noexcept override;
  Status edit(const std::string& chat_id, const std::string& message_id,
              std::string_view text) noexcept override;
  Status typing(const std::string& chat_id) noexcept override;
  Result<std::string> sendPhoto(const std::string& chat_id, const Image& image,
                                std::string_view caption) noexcept override;
  Status streamText(const std::string& chat_id, std::string_view delta,
                    bool final) noexcept override;
  void event(const std::string& chat_id, const TurnEvent& event) noexcept override;
  /// The terminal or the pipe is the owner's only chat.
  std::string ownerChat() const noexcept override;
  /// On a terminal (text format): the line is written in place and erased by the next output.
  void status(const std::string& chat_id, std::string_view text) noexcept override;

 private:
  void writeLine(std::string_view line);
  /// Erases a status line still shown; called with out_mutex_ held.
  void clearStatusLocked();
  void prompt();
  /// Waits until stdin has input or stop() is called; false when stopping. Wakes once a
  /// heartbeat period without input, only to report the receive as good.
  bool waitForInput(InboundSink& sink);

  Host& host_;
  bool jsonl_;
  bool interactive_;
  std::atomic<bool> stop_{false};
  int wake_[2] = {-1, -1};          ///< a pipe stop() writes to, so the wait needs no timeout
  int idle_ms_;                     ///< the heartbeat period
  LineReader input_{STDIN_FILENO};  ///< read only by run()
  std::mutex out_mutex_;
  bool mid_stream_ = false;
  bool status_shown_ = false;  ///< a transient status line is on the terminal's current line
};

}  // namespace gantry::stdio
