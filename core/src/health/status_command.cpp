#include "health/status_command.h"

#include <filesystem>
#include <iostream>

#include "config/config.h"
#include "health/channel_watch.h"
#include "health/status_text.h"
#include "store/heartbeat_repo.h"
#include "vault/vault_location.h"

namespace fs = std::filesystem;

namespace gantry::health {
namespace {

std::string ago(int64_t at, int64_t now) {
  return at == 0 ? "never" : formatDuration(now - at) + " ago";
}

void printChannel(const store::Heartbeat& hb, const ChannelVerdict& verdict, int64_t now) {
  std::cout << "channel " << hb.channel << ": last good receive " << ago(hb.last_receive_ok_at, now)
            << (hb.last_receive_ok_at == 0 ? " (started " + ago(hb.started_at, now) + ")" : "")
            << (verdict.receive_failing ? " — failing" : "") << "\n";
  if (hb.send_failing_since != 0) {
    std::cout << "channel " << hb.channel << ": sends failing since "
              << ago(hb.send_failing_since, now) << " (" << hb.send_error << ")"
              << (verdict.send_failing ? " — failing" : "") << "\n";
  }
}

int report(const store::Heartbeat& hb) {
  int64_t now = store::nowMs();
  if (hb.beat_at == 0) {
    std::cout << "stopped: the instance (pid " << hb.pid << ") exited cleanly\n";
    return 1;
  }
  bool beat_fresh = store::isLive(hb, now);
  auto verdict = channelVerdict(hb, now);
  std::cout << "heartbeat: " << ago(hb.beat_at, now) << " (pid " << hb.pid << ", every "
            << hb.period_s << "s)" << (beat_fresh ? "" : " — stale") << "\n";
  printChannel(hb, verdict, now);
  std::cout << "model: last call "
            << (hb.last_model_outcome.empty() ? "none" : hb.last_model_outcome) << " "
            << (hb.last_model_at ? ago(hb.last_model_at, now) : "") << "\n";
  return beat_fresh && !verdict.receive_failing && !verdict.send_failing ? 0 : 1;
}

}  // namespace

int statusCommand(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::cout << "usage: gantry status\nExit 0 when the instance using DATA_DIR is alive.\n";
    return args[0] == "--help" || args[0] == "-h" ? 0 : 2;
  }
  auto config = config::load(config::processEnv(), vault::bootSecrets(config::processEnv()));
  if (!config.isOk()) return std::cerr << "gantry: " << config.status().message() << "\n", 1;
  auto path = (fs::path(config->data_dir) / "gantry.db").string();
  if (!fs::exists(path)) return std::cerr << "gantry: no database at " << path << "\n", 1;
  auto store = store::Store::open(path, store::Access::kReadOnly);
  Status usable = store.isOk() ? store.value()->requireSchema() : store.status();
  if (!usable.isOk()) return std::cerr << "gantry: " << usable.message() << "\n", 1;
  auto hb = store::HeartbeatRepo(*store.value()).read();
  if (!hb.isOk()) return std::cerr << "gantry: " << hb.status().message() << "\n", 1;
  if (!hb->has_value()) return std::cerr << "gantry: no heartbeat yet in " << path << "\n", 1;
  std::cout << sandboxLine(config.value()) << "\n";
  return report(*hb.value());
}

}  // namespace gantry::health
