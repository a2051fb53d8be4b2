#include "store/outbox_repo.h"

#include <catch2/catch.hpp>

#include "store/message_repo.h"
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

TEST_CASE("the owner's sending and done marks are committed when written", "[store][outbox]") {
  auto s = freshStore("outbox_committed.db");
  store::OutboxRepo outbox(*s);
  const int64_t first = recordReply(*s, "one");
  const int64_t second = recordReply(*s, "two");
  REQUIRE(outbox.markSending(first).isOk());
  CHECK(undeliveredSeenBy(s->path()) == Seen{{first, true}, {second, false}});

  REQUIRE(outbox.markDone(first, store::Delivery::kDelivered).isOk());
  CHECK(undeliveredSeenBy(s->path()) == Seen{{second, false}});
  REQUIRE(outbox.markDone(second, store::Delivery::kDropped).isOk());
  CHECK(outbox.pending()->empty());
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
