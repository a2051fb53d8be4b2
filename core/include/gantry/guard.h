#pragma once
/// guard(): wraps a module entry point so no exception crosses the boundary.

#include <exception>
#include <string>
#include <utility>

#include "gantry/status.h"

namespace gantry {

/// Runs fn and turns any exception into Status::error("<what>: <exception text>").
/// fn returns Status or Result<T>.
template <class Fn>
auto guard(const char* what, Fn&& fn) noexcept -> decltype(fn()) {
  try {
    return std::forward<Fn>(fn)();
  } catch (const std::exception& e) {
    return Status::error(std::string(what) + ": " + e.what());
  } catch (...) {
    return Status::error(std::string(what) + ": unknown exception");
  }
}

}  // namespace gantry
