#pragma once
/// `gantry doctor [--repair]`: integrity check of DATA_DIR/gantry.db (quick_check, the FTS
/// index, tool calls left running); --repair rebuilds the FTS index and closes orphaned
/// tool calls. Run it while the instance is stopped.

#include <string>
#include <vector>

namespace gantry::app {

int doctorCommand(const std::vector<std::string>& args);

}  // namespace gantry::app
