#include "health/doctor_command.h"

#include <filesystem>
#include <iostream>

#include "config/config.h"
#include "store/heartbeat_repo.h"
#include "store/maintenance.h"
#include "store/message_repo.h"
#include "vault/vault_location.h"

namespace fs = std::filesystem;

namespace gantry::health {
namespace {

int check(store::Store& store, bool repair) {
  int problems = 0;
  std::cout << "quick_check: ok\n";  // Store::open (Check::kAlways) refuses one that fails it
  if (Status s = store::checkFts(store); !s.isOk()) {
    std::cout << "fts: " << s.message() << "\n";
    if (repair) {
      Status fixed = store::rebuildFts(store);
      std::cout << "fts: " << (fixed.isOk() ? "rebuilt" : fixed.message()) << "\n";
      problems += fixed.isOk() ? 0 : 1;
    } else {
      ++problems;
    }
  } else {
    std::cout << "fts (memory, messages): ok\n";
  }
  if (repair) {
    auto closed = store::MessageRepo(store).closeOrphanedToolCalls();
    if (!closed.isOk()) return std::cerr << "gantry: " << closed.status().message() << "\n", 1;
    std::cout << "tool calls closed: " << closed->size() << "\n";
  }
  return problems == 0 ? 0 : 1;
}

// --repair closes tool calls it believes orphaned; a live instance may still be running
// them, and a second result for one call breaks every later turn of that chat.
bool refuseRepairWhileLive(const std::string& path) {
  auto store = store::Store::open(path, store::Access::kReadOnly);
  if (!store.isOk()) return false;  // the real open below reports it
  auto heartbeat = store::HeartbeatRepo(*store.value()).read();
  if (!heartbeat.isOk() || !heartbeat->has_value()) return false;
  const store::Heartbeat& hb = *heartbeat.value();
  if (!store::isLive(hb, store::nowMs())) return false;
  std::cerr << "gantry doctor: --repair refused: the instance using " << path << " is running (pid "
            << hb.pid << ", heartbeat fresh); stop it first, then repair\n";
  return true;
}

}  // namespace

int doctorCommand(const std::vector<std::string>& args) {
  bool repair = args.size() == 1 && args[0] == "--repair";
  if (!args.empty() && !repair) {
    bool help = args[0] == "--help" || args[0] == "-h";
    (help ? std::cout : std::cerr) << "usage: gantry doctor [--repair]\n";
    return help ? 0 : 2;
  }
  auto config = config::load(config::processEnv(), vault::bootSecrets(config::processEnv()));
  if (!config.isOk()) return std::cerr << "gantry: " << config.status().message() << "\n", 1;
  auto path = (fs::path(config->data_dir) / "gantry.db").string();
  if (!fs::exists(path)) return std::cerr << "gantry: no database at " << path << "\n", 1;
  if (repair && refuseRepairWhileLive(path)) return 1;
  // Only a repair, with no instance running, may bring the schema up to date.
  auto store = store::Store::open(path, repair ? store::Access::kOwner : store::Access::kNoSchema,
                                  store::Check::kAlways);
  Status usable = !store.isOk() ? store.status()
                  : repair      ? Status::ok()
                                : store.value()->requireSchema();
  if (!usable.isOk()) return std::cerr << "gantry: " << usable.message() << "\n", 1;
  return check(*store.value(), repair);
}

}  // namespace gantry::health
