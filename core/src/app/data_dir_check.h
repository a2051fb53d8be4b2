#pragma once
/// Boot's check that DATA_DIR can be written before the store opens it (DESIGN 3: one line
/// naming the variable), rather than SQLite's "unable to open database file".

#include <string>

#include "gantry/status.h"

namespace gantry::app {

/// The directory, and its gantry.db with the journal files when present, can be written by
/// this process's effective user. An error naming DATA_DIR, the path and the user otherwise.
Status checkDataDirWritable(const std::string& dir);

}  // namespace gantry::app
