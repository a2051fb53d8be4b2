#pragma once
/// wakeReader: ends a read another thread is blocked in on socket, without closing it.
///
/// Closing a descriptor under a blocked read is a race: the read may already be on its way
/// into the kernel with the number, which the next open() can hand to another file.
/// shutdown(2) leaves the descriptor valid and makes the read return at once; the thread
/// that owns the socket closes it when its exchange ends.
///
/// Header-only Poco code with no boundary types, like low_latency_session.h.

#include <Poco/Net/Socket.h>
#include <sys/socket.h>

namespace gantry::net {

inline void wakeReader(Poco::Net::Socket& socket) noexcept {
  if (socket.impl()->initialized()) ::shutdown(socket.impl()->sockfd(), SHUT_RDWR);
}

}  // namespace gantry::net
