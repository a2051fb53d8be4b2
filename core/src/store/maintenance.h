#pragma once
/// Operator maintenance of the store (`gantry doctor`): the full-text indexes.

#include "store/store.h"

namespace gantry::store {

/// Checks that memory_fts and messages_fts agree with their tables; an error names the
/// index that does not.
Status checkFts(Store& store);
/// Rebuilds both full-text indexes from their tables.
Status rebuildFts(Store& store);

}  // namespace gantry::store
