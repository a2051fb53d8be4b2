#include "store/inbox_repo.h"

#include <Poco/Data/RecordSet.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <sqlite3.h>

#include <sstream>

#include "store/db.h"

using Poco::Data::Keywords::into;
using Poco::Data::Keywords::now;
using Poco::Data::Keywords::use;

namespace gantry::store {
namespace {

std::string encodeImages(const std::vector<Image>& images) {
  if (images.empty()) return {};
  Poco::JSON::Array array;
  for (const auto& image : images) {
    Poco::JSON::Object object;
    object.set("mime_type", image.mime_type);
    object.set("data_base64", image.data_base64);
    object.set("url", image.url);
    array.add(object);
  }
  std::ostringstream out;
  array.stringify(out);
  return out.str();
}

std::vector<Image> decodeImages(const std::string& json) {
  std::vector<Image> images;
  if (json.empty()) return images;
  auto array = Poco::JSON::Parser().parse(json).extract<Poco::JSON::Array::Ptr>();
  for (unsigned i = 0; i < array->size(); ++i) {
    auto object = array->getObject(i);
    images.push_back({object->optValue<std::string>("mime_type", ""),
                      object->optValue<std::string>("data_base64", ""),
                      object->optValue<std::string>("url", "")});
  }
  return images;
}

}  // namespace

Result<int64_t> InboxRepo::add(const InboundMessage& m) {
  try {
    std::lock_guard lock(store_.mutex());
    Query insert(store_.db().prepared,
                 "INSERT INTO inbox(chat_id, sender_id, sender_name, message_id, text, images, "
                 "received_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
    insert.bind(m.chat_id).bind(m.sender_id).bind(m.sender_name).bind(m.message_id);
    insert.bind(m.text).bind(encodeImages(m.images)).bind(nowMs());
    insert.run();
    return static_cast<int64_t>(sqlite3_last_insert_rowid(store_.db().prepared.db()));
  } catch (const Poco::Exception& e) {
    return Status::error("store: inbox add: " + e.displayText());
  }
}

Result<bool> InboxRepo::seen(const InboundMessage& m) {
  if (m.message_id.empty()) return false;
  try {
    std::lock_guard lock(store_.mutex());
    std::string chat = m.chat_id, mid = m.message_id;
    int count = 0;
    store_.db().session << "SELECT COUNT(*) FROM inbox WHERE chat_id = ? AND message_id = ?",
        use(chat), use(mid), into(count), now;
    return count > 0;
  } catch (const Poco::Exception& e) {
    return Status::error("store: inbox seen: " + e.displayText());
  }
}

Status InboxRepo::markHandled(const std::vector<int64_t>& ids) {
  try {
    std::lock_guard lock(store_.mutex());
    int64_t at = nowMs();
    for (int64_t id : ids) {
      int64_t row = id;
      store_.db().session << "UPDATE inbox SET handled_at = ?, images = '' WHERE id = ?", use(at),
          use(row), now;
    }
    return Status::ok();
  } catch (const Poco::Exception& e) {
    return Status::error("store: inbox mark handled: " + e.displayText());
  }
}

Result<std::vector<std::pair<int64_t, InboundMessage>>> InboxRepo::pending() {
  try {
    std::lock_guard lock(store_.mutex());
    Poco::Data::Statement select(store_.db().session);
    select << "SELECT id, chat_id, sender_id, sender_name, message_id, text, images FROM inbox "
              "WHERE handled_at IS NULL ORDER BY id";
    select.execute();
    Poco::Data::RecordSet rows(select);
    std::vector<std::pair<int64_t, InboundMessage>> out;
    for (bool more = rows.moveFirst(); more; more = rows.moveNext()) {
      InboundMessage m{rows.value(1).convert<std::string>(),
                       rows.value(2).convert<std::string>(),
                       rows.value(3).convert<std::string>(),
                       rows.value(5).convert<std::string>(),
                       decodeImages(rows.value(6).convert<std::string>()),
                       rows.value(4).convert<std::string>()};
      out.emplace_back(rows.value(0).convert<int64_t>(), std::move(m));
    }
    return out;
  } catch (const Poco::Exception& e) {
    return Status::error("store: inbox pending: " + e.displayText());
  }
}

}  // namespace gantry::store
