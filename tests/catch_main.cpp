// ctest runs each test case on its own, named by a test spec. A spec that matches no test case
// fails here instead of passing with nothing run: a name that CMake's lists cut apart (a ";")
// or that Catch reads as a tag (a "[") would otherwise never run and never fail.
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
