#include "mcp/resolve_value.h"

namespace gantry::mcp {

std::string resolveValue(const std::string& value) { return value; }

}  // namespace gantry::mcp
