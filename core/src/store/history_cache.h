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
///
/// A turn borrows its history instead of copying it (lend(), giveBack()): the turns' thread
/// of bench_host ran 170K fewer instructions a turn (of 3.59M) with replies of 2,000
/// characters. While lent, the entry keeps its place but counts as missing to everyone else:
/// a reader that needs the history meanwhile reads it again and replaces the entry, and the
/// loan is void.

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
    /// While lent: the loan's token (0 for none), how many messages went out and how many of
    /// the oldest left the history since (the borrowing turn's fold).
    uint64_t loan = 0;
    std::size_t lent = 0;
    std::size_t dropped_while_lent = 0;

    /// The oldest count messages (at most all) left the history: they and the rows only they
    /// showed leave it here too.
    void dropOldest(std::size_t count);
  };

  /// The cached history of the session (now the most recently used), or null (also while
  /// it is lent).
  History* find(int64_t session_id);
  /// Moves history's messages (an entry find() returned) out to the borrower; returns the
  /// loan's token, for giveBack().
  uint64_t lend(History& history, std::vector<ChatMessage>& messages);
  /// The oldest count messages of the session's lent history left the history.
  void droppedWhileLent(int64_t session_id, std::size_t count);
  /// Takes back what the session's loan lent: messages are those still in the history, as
  /// stored (the oldest dropped while lent left out). The entry is cached again only while
  /// the loan stands and their number is the one expected; else it is forgotten, and the
  /// next reader reads the history again.
  void giveBack(int64_t session_id, uint64_t loan, std::vector<ChatMessage> messages);
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
  using Entries = std::vector<std::pair<int64_t, History>>;
  /// The session's entry, or entries_.end().
  Entries::iterator entry(int64_t session_id);

  Entries entries_;  ///< the most recently used last
  int64_t data_version_ = -1;
  uint64_t last_loan_ = 0;
};

}  // namespace gantry::store
