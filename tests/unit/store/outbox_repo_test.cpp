#include "store/outbox_repo.h"

#include <catch2/catch.hpp>

#include "store/message_repo.h"
#include "store/pending_writes.h"
#include "store/turn_repo.h"
#include "unit/store/fresh_store.h"

using namespace gantry;
using gantry::testing::freshStore;

namespace {

/// A turn closed with its reply, as the agent records it: returns the reply's outbox id.
int64_t recordReply(store::Store& s, const std::string& text) {
  store::MessageRepo messages(s);
  store::TurnRepo turns(s);
  const int64_t session = messages.session("chat").value();
  REQUIRE(turns.open(session, {Role::kUser, "question", {}, {}, {}, {}, {}}, {}).isOk());
  auto outbox = turns.closeWithReply(session, "chat", {Role::kAssistant, text, {}, {}, {}, {}, {}});
  REQUIRE(outbox.isOk());
  return outbox.value();
}

/// The ids another connection sees as undelivered (committed state), and whether each was
/// attempted.
std::vector<std::pair<int64_t, bool>> undeliveredSeenBy(const std::string& path) {
  auto reader = store::Store::open(path, store::Access::kReadOnly);
  REQUIRE(reader.isOk());
  auto pending = store::OutboxRepo(*reader.value()).pending();
  REQUIRE(pending.isOk());
  std::vector<std::pair<int64_t, bool>> out;
  for (const auto& item : pending.value()) out.emplace_back(item.id, item.attempted);
  return out;
}

using Seen = std::vector<std::pair<int64_t, bool>>;

}  // namespace

TEST_CASE("the owner's done mark is written with its next write transaction", "[store][outbox]") {
  auto s = freshStore("outbox_carried.db");
  store::OutboxRepo outbox(*s);
  const int64_t first = recordReply(*s, "one");
  REQUIRE(outbox.markSending(first).isOk());
  CHECK(undeliveredSeenBy(s->path()) == Seen{{first, true}});  // sending: written at once

  REQUIRE(outbox.markDone(first, store::Delivery::kDelivered).isOk());
  CHECK(undeliveredSeenBy(s->path()) == Seen{{first, true}});  // waits for the next write

  const int64_t second = recordReply(*s, "two");  // that write carries the mark
  CHECK(undeliveredSeenBy(s->path()) == Seen{{second, false}});
}

TEST_CASE("a waiting done mark is written by pending(), a flush and the store's close",
          "[store][outbox]") {
  auto s = freshStore("outbox_flushed.db");
  store::OutboxRepo outbox(*s);
  const int64_t reply = recordReply(*s, "one");
  REQUIRE(outbox.markSending(reply).isOk());
  REQUIRE(outbox.markDone(reply, store::Delivery::kDelivered).isOk());
  CHECK(outbox.pending()->empty());  // this process never sees its delivered reply as pending
  CHECK(undeliveredSeenBy(s->path()).empty());

  const int64_t flushed = recordReply(*s, "two");
  REQUIRE(outbox.markDone(flushed, store::Delivery::kDropped).isOk());
  CHECK(undeliveredSeenBy(s->path()) == Seen{{flushed, false}});
  REQUIRE(s->flush().isOk());
  CHECK(undeliveredSeenBy(s->path()).empty());

  const int64_t closed = recordReply(*s, "three");
  REQUIRE(outbox.markDone(closed, store::Delivery::kDelivered).isOk());
  const std::string path = s->path();
  s.reset();
  CHECK(undeliveredSeenBy(path).empty());
}

TEST_CASE("done marks are written at once when too many wait", "[store][outbox]") {
  auto s = freshStore("outbox_full.db");
  store::OutboxRepo outbox(*s);
  std::vector<int64_t> ids;
  for (std::size_t i = 0; i < store::PendingWrites::kMax; ++i) {
    ids.push_back(recordReply(*s, "reply " + std::to_string(i)));
  }
  for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
    REQUIRE(outbox.markDone(ids[i], store::Delivery::kDelivered).isOk());
  }
  CHECK(undeliveredSeenBy(s->path()).size() == ids.size());  // 63 marks wait
  REQUIRE(outbox.markDone(ids.back(), store::Delivery::kDelivered).isOk());
  CHECK(undeliveredSeenBy(s->path()).empty());
}

TEST_CASE("a store that is not the owner writes a done mark at once", "[store][outbox]") {
  auto owner = freshStore("outbox_operator.db");
  const int64_t reply = recordReply(*owner, "one");
  auto operator_store = store::Store::open(owner->path(), store::Access::kNoSchema);
  REQUIRE(operator_store.isOk());
  REQUIRE(store::OutboxRepo(*operator_store.value())
              .markDone(reply, store::Delivery::kDelivered)
              .isOk());
  CHECK(undeliveredSeenBy(owner->path()).empty());
}
