#pragma once
/// Operator side of approvals: `gantry approvals | approve ID | deny ID`.

#include <iosfwd>
#include <string>
#include <vector>

#include "approvals/approvals.h"

namespace gantry::approvals {

/// Runs `gantry <args>` where args[0] is "approvals", "approve" or "deny".
///   approvals    one pending approval per line: id, chat, tool, created, expires (UTC ISO),
///                arguments (redacted); tab-separated, tabs and newlines in fields as spaces
///   approve ID   approves ID ("cli" decides); a waiting turn runs it within a second, a
///   deny ID      parked one continues in its chat
/// Returns the exit code: 0 decided, 1 refused (unknown, expired, already decided or used)
/// or store failure, 2 usage error (message on err).
int approvalsCommand(Approvals& approvals, const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err);

}  // namespace gantry::approvals
