#include "watch/watch_command.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <ostream>

#include "cron/schedule.h"
#include "gantry/text/tsv_field.h"
#include "store/watch_repo.h"
#include "watch/watch_tools.h"

namespace gantry::watch {
namespace {

constexpr const char* kUsage = "usage: gantry watch list | gantry watch rm ID";

int listWatches(store::WatchRepo& repo, const cron::Zone& zone, std::ostream& out,
                std::ostream& err) {
  Result<std::vector<store::Watch>> watches = repo.list();
  if (!watches.isOk()) {
    err << "gantry watch list: " << watches.status().message() << "\n";
    return 1;
  }
  for (const store::Watch& w : watches.value()) {
    out << w.id << '\t' << text::tsvField(w.tool) << '\t' << text::tsvField(describeInterval(w))
        << '\t' << (w.next_poll_at ? cron::formatLocal(*w.next_poll_at, zone.tz) : "none") << '\t'
        << text::tsvField(w.chat_id) << '\t' << text::tsvField(WatchTools::stateOf(w, "")) << '\t'
        << text::tsvField(w.prompt) << '\n';
  }
  return 0;
}

std::optional<int64_t> parseId(const std::string& text) {
  if (text.empty() || text.size() > 18 ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  return std::stoll(text);
}

int removeWatch(store::WatchRepo& repo, const std::string& id_text, std::ostream& out,
                std::ostream& err) {
  std::optional<int64_t> id = parseId(id_text);
  if (!id) {
    err << "gantry watch rm: \"" << id_text << "\" is not a watch id (see gantry watch list)\n";
    return 2;
  }
  Result<bool> removed = repo.remove(*id);
  if (!removed.isOk()) {
    err << "gantry watch rm: " << removed.status().message() << "\n";
    return 1;
  }
  if (!removed.value()) {
    err << "gantry watch rm: no watch " << *id << " (see gantry watch list)\n";
    return 1;
  }
  out << "removed watch " << *id << "\n";
  return 0;
}

}  // namespace

int watchCommand(store::Store& store, const std::vector<std::string>& args, const cron::Zone& zone,
                 std::ostream& out, std::ostream& err) {
  store::WatchRepo repo(store);
  if (args.size() == 1 && args[0] == "list") return listWatches(repo, zone, out, err);
  if (args.size() == 2 && args[0] == "rm") return removeWatch(repo, args[1], out, err);
  err << kUsage << "\n";
  return 2;
}

}  // namespace gantry::watch
