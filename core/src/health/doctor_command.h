#pragma once
/// `gantry doctor [--repair]`: integrity check of DATA_DIR/gantry.db (quick_check, the FTS
/// index, tool calls left running); --repair rebuilds the FTS index and closes orphaned
/// tool calls. --repair is refused (exit 1) while the heartbeat says an instance is running:
/// a "left running" call may still be executing there. The check alone never migrates.

#include <string>
#include <vector>

namespace gantry::health {

int doctorCommand(const std::vector<std::string>& args);

}  // namespace gantry::health
