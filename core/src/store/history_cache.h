#pragma once
/// The in-history messages of the sessions read last, so that opening a chat reads only the
/// messages added since: reading a 200-message history again was 13% of a turn's
/// instructions (bench_host). Included by store/*.cpp only; used under the Store's lock.
///
/// A history changes by messages appended (with ids above every earlier one) and by messages
/// leaving it (in_history 1 -> 0, never back). What the store's own connection changes, it
/// changes here too (MessageRepo: a fold takes the messages out, hiding, clearing and the one
/// rewrite of a message forget the histories that may hold them), so a cached history stays
/// whole until another connection commits (PRAGMA data_version). Then it is whole while the
/// session has as many messages in history up to its last id as the cache holds: counting
/// them every turn was 87K of bench_host's 3.80M instructions a turn.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "gantry/message.h"
#include "gantry/text/shown_rows.h"

namespace gantry::store {

class HistoryCache {
 public:
  struct History {
    int64_t last_id = 0;  ///< the newest message read; 0 for none
    std::vector<ChatMessage> messages;
    text::ShownRows shown;  ///< the memory rows its user messages show
    /// Known whole since another connection last committed (counted, or read whole).
    bool checked = true;

    /// The oldest count messages (at most all) left the history: they and the rows only they
    /// showed leave it here too.
    void dropOldest(std::size_t count);
  };

  /// The cached history of the session (now the most recently used), or null.
  History* find(int64_t session_id);
  /// Caches the session's history, in place of any earlier one; the least recently used
  /// session beyond kSessions is forgotten. Returns the cached history.
  History& keep(int64_t session_id, History history);
  /// Forgets every cached history that may hold message_id (read up to it or past it).
  void forgetHolding(int64_t message_id);
  /// Forgets the session's cached history.
  void forget(int64_t session_id);
  /// The connection's PRAGMA data_version, read in the transaction that uses the cache: when
  /// it moved, another connection has committed and no history is known whole.
  void seeDataVersion(int64_t version);

  /// A personal agent talks in a chat or two; a history is ~100 KB at its bound.
  static constexpr std::size_t kSessions = 4;

 private:
  std::vector<std::pair<int64_t, History>> entries_;  ///< the most recently used last
  int64_t data_version_ = -1;
};

}  // namespace gantry::store
