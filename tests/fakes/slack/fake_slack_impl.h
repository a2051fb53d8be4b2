#pragma once
/// FakeSlack internals shared by the socket side (fake_slack.cpp) and the HTTP routes
/// (fake_slack_routes.cpp).

#include <Poco/JSON/Object.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/WebSocket.h>
#include <Poco/ThreadPool.h>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fake_slack.h"

namespace gantry::fakes {

class FakeSlack::Impl {
 public:
  using Clock = std::chrono::steady_clock;

  struct Socket {
    int id = 0;
    Poco::Net::WebSocket ws;
    bool hello_sent = false;
    bool closing = false;  ///< the handler sends a close frame and ends
    bool drop = false;     ///< the handler closes the TCP connection without a close frame
    bool retiring = false;
    Clock::time_point retire_deadline;
    std::optional<Clock::time_point> successor_since;
    explicit Socket(const Poco::Net::WebSocket& socket) : ws(socket) {}
  };

  struct Envelope {
    std::string envelope_id;
    std::string payload_json;
    int sent = 0;   ///< frames sent so far (first delivery + retries)
    int extra = 0;  ///< forced redeliveries still to send
    bool acked = false;
    Clock::time_point last_sent;
  };

  struct Script {
    int http_status = 200;
    std::string error;
    int retry_after = 1;
  };

  struct File {
    std::string mimetype;
    std::string bytes;
  };

  explicit Impl(Options options);
  ~Impl();

  // socket side (fake_slack.cpp)
  void serveSocket(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response);
  void dispatchLoop();
  void deliverDue();
  void sendEnvelope(Envelope& envelope, const std::shared_ptr<Socket>& socket);
  std::shared_ptr<Socket> newestSocket();
  void closeRetiring();
  bool sendText(Socket& socket, const std::string& text);
  void recordAck(const std::string& frame);
  std::string enqueue(const Event& event);
  void disconnect(const std::string& reason);

  // HTTP side (fake_slack_routes.cpp)
  void serveApi(const std::string& method, Poco::Net::HTTPServerRequest& request,
                Poco::Net::HTTPServerResponse& response);
  void serveFile(const std::string& id, Poco::Net::HTTPServerRequest& request,
                 Poco::Net::HTTPServerResponse& response);
  void serveControl(const std::string& what, Poco::Net::HTTPServerRequest& request,
                    Poco::Net::HTTPServerResponse& response);
  Poco::JSON::Object::Ptr apiCall(const std::string& method, const std::string& token,
                                  const Poco::JSON::Object::Ptr& params);
  Poco::JSON::Object::Ptr postMessage(const Poco::JSON::Object::Ptr& params);
  Poco::JSON::Object::Ptr updateMessage(const Poco::JSON::Object::Ptr& params);
  std::string fileUrl(const std::string& id) const;

  Options options_;
  Poco::Net::ServerSocket server_socket_;
  Poco::ThreadPool pool_{2, 32};
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  int port_ = 0;

  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<Socket>> sockets_;
  std::deque<Envelope> envelopes_;
  std::vector<Posted> messages_;
  std::map<std::string, std::deque<Script>> scripts_;
  std::map<std::string, File> files_;
  std::set<std::string> channels_;
  Stats stats_;
  int next_socket_ = 1;
  int next_id_ = 1;
  std::atomic<bool> stopping_{false};
  std::thread dispatcher_;
};

}  // namespace gantry::fakes
