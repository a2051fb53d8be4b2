#pragma once
/// Operator side of cron: `gantry cron list|rm ID` and the /status line.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "cron/cron_options.h"
#include "store/store.h"

namespace gantry::cron {

/// Runs `gantry cron <args>`; args are the words after "cron" (e.g. {"list"}, {"rm", "3"}).
///   list   one job per line: id, schedule, next run (local ISO time in `zone`, or "none"),
///          chat id, prompt; tab-separated (tabs and newlines in fields become spaces)
///   rm ID  deletes job ID
/// Returns the exit code: 0 success, 1 unknown job or store failure, 2 usage error (message
/// on err).
int cronCommand(store::Store& store, const std::vector<std::string>& args, const Zone& zone,
                std::ostream& out, std::ostream& err);

/// `gantry COMMAND rm ID` for rows with integer ids (cron jobs, watches): parses id_text and
/// deletes that row with remove. Says "removed WHAT N", or why not naming NOUN ("no job 4",
/// "\"x\" is not a job id"). Returns 0, 1 (no such row, store failure) or 2 (not an id).
int removeCommand(const std::string& command, const std::string& noun, const std::string& what,
                  const std::string& id_text, const std::function<Result<bool>(int64_t)>& remove,
                  std::ostream& out, std::ostream& err);

/// One line for /status: "cron: 3 jobs, next 2026-12-01 07:30 Europe/Berlin",
/// "cron: 0 jobs", or "cron: off" when disabled. Never throws; a store fault is reported in
/// the line.
std::string cronStatusLine(store::Store& store, const Zone& zone, bool enabled = true);

}  // namespace gantry::cron
