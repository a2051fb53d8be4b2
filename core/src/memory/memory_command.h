#pragma once
/// `gantry memory list [--kind K] [--conflicts] | search QUERY | forget ID`: the operator's
/// view of memory (DESIGN 9). One row per line, id first, fields tab-separated (tabs and line
/// breaks inside a field become spaces).
///
///   list/search rows:  id  kind  source  state  created  subject  content
///                      (state: active | expired | superseded_by=N; created: UTC ISO 8601)
///   --conflicts rows:  id  open|resolved  created  subject  content  persona_excerpt

#include <ostream>
#include <string>
#include <vector>

#include "store/store.h"

namespace gantry::memory {

/// Runs the command; args are the words after `memory`. Rows go to out, errors and usage to
/// err (usage to out for --help). Returns the exit code: 0 success, 1 runtime error (store
/// failure, unknown id), 2 usage error.
int memoryCommand(store::Store& store, const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err);

}  // namespace gantry::memory
