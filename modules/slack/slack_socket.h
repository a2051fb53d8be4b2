#pragma once
/// SocketConnection: one Socket Mode WebSocket. Its reader thread acknowledges every
/// envelope the moment it arrives, answers pings, and hands envelopes to a listener.

#include <Poco/Net/Context.h>
#include <Poco/Net/WebSocket.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "gantry/status.h"
#include "slack_api.h"

namespace gantry::slack {

class SocketConnection;

/// Receives what a connection's reader thread sees. Called on that thread; must not block
/// for long (acks of later envelopes wait behind it).
class SocketListener {
 public:
  virtual ~SocketListener() = default;
  /// An envelope, already acknowledged when it carried an envelope_id.
  virtual void onEnvelope(SocketConnection& connection, Envelope envelope) = 0;
  /// The connection ended (peer close, network fault, silence, or close()); called once.
  virtual void onClosed(SocketConnection& connection, const std::string& why) = 0;
};

/// One WebSocket to a Socket Mode URL. All socket I/O happens on the reader thread, so
/// the TLS session is never used from two threads. Non-copyable; the destructor closes.
class SocketConnection {
 public:
  /// Performs the WebSocket handshake with url (wss:// or ws://) and starts the reader.
  /// Fails retryably on network faults and handshake errors.
  static Result<std::unique_ptr<SocketConnection>> open(const std::string& url,
                                                        const Poco::Net::Context::Ptr& tls,
                                                        SocketListener& listener, int id);
  ~SocketConnection();
  SocketConnection(const SocketConnection&) = delete;
  SocketConnection& operator=(const SocketConnection&) = delete;

  /// Asks the reader to send a close frame and stop (within about half a second), then
  /// joins it. Idempotent; must not be called from the reader thread.
  void close();
  /// True once the reader has ended (onClosed has been called).
  bool finished() const { return finished_; }
  /// A small number naming the connection in logs.
  int id() const { return id_; }

 private:
  SocketConnection(const Poco::Net::WebSocket& socket, SocketListener& listener, int id);
  void readLoop();
  std::string readFrames();
  bool handleFrame(int flags, std::string_view payload, std::string& message, std::string* why);
  void handleMessage(const std::string& text);
  bool keepAlive(std::string* why);
  void sendText(const std::string& text);

  Poco::Net::WebSocket socket_;
  SocketListener& listener_;
  const int id_;
  std::atomic<bool> closing_{false};
  std::atomic<bool> finished_{false};
  std::chrono::steady_clock::time_point last_frame_;
  bool ping_sent_ = false;
  std::thread reader_;
};

}  // namespace gantry::slack
