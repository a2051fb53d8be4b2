#pragma once
/// Operator side of watches: `gantry watch list|rm ID`.

#include <iosfwd>
#include <string>
#include <vector>

#include "cron/cron_options.h"
#include "store/store.h"

namespace gantry::watch {

/// Runs `gantry watch <args>`; args are the words after "watch" ({"list"}, {"rm", "3"}).
///   list   one watch per line: id, tool, interval ("every 15m" or the schedule), next poll
///          (local ISO time in `zone`, or "none"), chat id, state ("ok", "waiting for its
///          first poll", "failing (N polls in a row): ERROR"), prompt; tab-separated (tabs
///          and newlines in fields become spaces)
///   rm ID  deletes watch ID and the ids it has seen
/// Returns the exit code: 0 success, 1 unknown watch or store failure, 2 usage error
/// (message on err).
int watchCommand(store::Store& store, const std::vector<std::string>& args, const cron::Zone& zone,
                 std::ostream& out, std::ostream& err);

}  // namespace gantry::watch
