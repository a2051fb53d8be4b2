#include "app/repeat_filter.h"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

namespace gantry::app {

std::string repeatKey(std::string_view json_line) {
  try {
    Poco::JSON::Parser parser;
    auto object = parser.parse(std::string(json_line)).extract<Poco::JSON::Object::Ptr>();
    std::string key =
        object->optValue<std::string>("level", "") + "|" + object->optValue<std::string>("msg", "");
    for (const char* field : {"server", "module", "tool"}) {
      if (object->has(field)) key += "|" + object->get(field).toString();
    }
    return key;
  } catch (const std::exception&) {
    return std::string(json_line);
  }
}

bool RepeatFilter::admit(const std::string& key, std::string_view line, Clock::time_point now,
                         std::size_t* repeats_before) {
  auto [it, fresh] = entries_.try_emplace(key);
  Entry& entry = it->second;
  if (!fresh && now - entry.reported_at < window_) {
    ++entry.repeats;
    entry.last_line = line;
    return false;
  }
  *repeats_before = entry.repeats;
  entry = Entry{now, 0, {}};
  return true;
}

std::vector<RepeatFilter::Summary> RepeatFilter::due(Clock::time_point now) {
  std::vector<Summary> summaries;
  for (auto it = entries_.begin(); it != entries_.end();) {
    Entry& entry = it->second;
    if (now - entry.reported_at < window_) {
      ++it;
    } else if (entry.repeats > 0) {
      summaries.push_back({std::move(entry.last_line), entry.repeats});
      entry = Entry{now, 0, {}};
      ++it;
    } else {
      it = entries_.erase(it);  // quiet for a whole window: forget it
    }
  }
  return summaries;
}

}  // namespace gantry::app
