#include "config/example_files.h"

#include <filesystem>
#include <system_error>

namespace gantry::config {

std::string exampleFile(std::string_view name) {
  std::string packaged = std::string(kPackageExamples) + std::string(name);
  std::error_code ec;
  if (std::filesystem::exists(packaged, ec)) return packaged;
  std::string checkout = std::string(GANTRY_SOURCE_DIR) + "/etc/" + std::string(name);
  if (std::filesystem::exists(checkout, ec)) return checkout;
  return packaged;
}

}  // namespace gantry::config
