// ctest runs each test case on its own, named by a test spec. A spec that matches no test case
// fails here instead of passing with nothing run: names that catch_discover_tests' CMake lists
// cut apart (a ";") or run together (an unclosed "[") would otherwise never run and never fail.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  Catch::ConfigData& config = session.configData();
  config.warnings =
      static_cast<Catch::WarnAbout::What>(config.warnings | Catch::WarnAbout::NoTests);
  return session.run();
}
