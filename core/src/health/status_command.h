#pragma once
/// `gantry status`: the healthcheck. Reads the heartbeat row of DATA_DIR/gantry.db.

#include <string>
#include <vector>

namespace gantry::health {

/// Exit 0 when the heartbeat is fresh (within 3 periods), the channel received successfully
/// within 3 periods and its sends have not all been failing for 3 periods; 1 otherwise.
/// Prints what it found.
int statusCommand(const std::vector<std::string>& args);

}  // namespace gantry::health
