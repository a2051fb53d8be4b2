#pragma once
/// What a stdio MCP server may reach (DESIGN 8): the system read-only, its own state
/// directory (also its HOME, with a private TMPDIR inside), a few device files, its own
/// /proc entry, and what the manifest's `sandbox` grants it. Never a protected path (the
/// data directory, the credentials, the key file's directory, /etc/gantry, the persona,
/// the manifest): a system grant that holds one is split around it, a manifest grant that
/// touches one is refused.

#include <string>
#include <vector>

#include "gantry/status.h"
#include "sandbox/landlock.h"

namespace gantry::sandbox {

/// The instance's sandbox settings (MCP_SANDBOX and the paths it protects).
struct Settings {
  bool enabled = false;
  std::string state_root;                    ///< servers' state directories: state_root/NAME
  std::vector<std::string> protected_paths;  ///< absolute; missing ones are fine
};

/// A server's manifest grants: `sandbox = { read = [...], write = [...] }`.
struct Grants {
  std::vector<std::string> read;   ///< read and execute beneath each
  std::vector<std::string> write;  ///< read, write, create and remove beneath each
};

/// One server's sandbox, as its transport builds it at every start.
struct ServerPlan {
  int abi = 0;  ///< the kernel's Landlock ABI
  std::string state_dir;
  Grants grants;
  std::vector<std::string> protected_paths;
  bool terminal = false;  ///< also the controlling terminal (`gantry auth`)
};

/// Prepares the state directory and builds the ruleset for plan and the resolved program.
Result<Ruleset> buildRuleset(const ServerPlan& plan, const std::string& program);

/// The protected paths of an instance: DATA_DIR, PERSONA_DIR, the manifest, /etc/gantry,
/// $CREDENTIALS_DIRECTORY and the vault key file's directory (each given when known).
std::vector<std::string> protectedPaths(const std::string& data_dir, const std::string& persona_dir,
                                        const std::string& manifest,
                                        const std::string& credentials_dir,
                                        const std::string& key_file);

/// Refuses a grant that is relative, or lies inside or contains a protected path. The error
/// names the server, the grant and the path it would expose.
Status checkGrants(const std::string& server, const Grants& grants, const Settings& settings);

/// The state directory of server (created 0700 with its tmp/ by prepareStateDir).
std::string stateDir(const Settings& settings, const std::string& server);
Status prepareStateDir(const std::string& dir);

/// Every rule for one server whose program resolved to program (an absolute path): its
/// directory is granted read and execute like the system.
std::vector<Rule> rulesFor(const std::string& program, const ServerPlan& plan);

}  // namespace gantry::sandbox
