#pragma once
/// `gantry tokens [CHAT_ID]`: a chat's standing prompt, estimated part by part (chars/4), as
/// recorded when its last turn ended (the chat recorded last when no id is given), beside the
/// last turn's prompt tokens as the endpoint reported them. A first row `chat  ID  recorded`
/// (UTC ISO 8601), then the rows budgetTsv prints.

#include <ostream>
#include <string>
#include <vector>

#include "store/store.h"

namespace gantry::agent {

/// Rows to out, errors to err. Returns 0, 1 when nothing is recorded or the store fails,
/// 2 on a usage error.
int tokensCommand(store::Store& store, const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err);

}  // namespace gantry::agent
