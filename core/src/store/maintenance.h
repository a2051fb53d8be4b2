#pragma once
/// Operator maintenance of the store (`gantry doctor`).

#include "store/store.h"

namespace gantry::store {

/// Checks that memory_fts agrees with the memory table; an error describes the mismatch.
Status checkFts(Store& store);
/// Rebuilds memory_fts from the memory table.
Status rebuildFts(Store& store);

}  // namespace gantry::store
