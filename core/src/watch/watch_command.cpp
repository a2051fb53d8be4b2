#include "watch/watch_command.h"

#include <ostream>

#include "cron/cron_command.h"
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

}  // namespace

int watchCommand(store::Store& store, const std::vector<std::string>& args, const cron::Zone& zone,
                 std::ostream& out, std::ostream& err) {
  store::WatchRepo repo(store);
  if (args.size() == 1 && args[0] == "list") return listWatches(repo, zone, out, err);
  if (args.size() == 2 && args[0] == "rm") {
    return cron::removeCommand(
        "watch", "watch", "watch", args[1], [&repo](int64_t id) { return repo.remove(id); }, out,
        err);
  }
  err << kUsage << "\n";
  return 2;
}

}  // namespace gantry::watch
