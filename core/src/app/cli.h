#pragma once
/// The command line (DESIGN 9). Exit codes: 0 success, 1 runtime or configuration error,
/// 2 usage error.

namespace gantry::app {

int main(int argc, char** argv);

}  // namespace gantry::app
