#pragma once
/// The sample files error messages point to, where the user at hand has them: an installed
/// package keeps them in /usr/share/doc/gantry/examples/, a source checkout in etc/.

#include <string>
#include <string_view>

namespace gantry::config {

/// The package's examples directory.
inline constexpr std::string_view kPackageExamples = "/usr/share/doc/gantry/examples/";

/// The path of sample file name (e.g. "mcp.toml.example"): the package's copy when it exists,
/// else the copy in etc/ of the source tree this binary was built from when that exists, else
/// the package's path (what an installed gantry would name).
std::string exampleFile(std::string_view name);

}  // namespace gantry::config
