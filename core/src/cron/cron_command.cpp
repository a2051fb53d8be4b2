#include "cron/cron_command.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <ostream>

#include "cron/schedule.h"
#include "gantry/text/tsv_field.h"
#include "store/cron_repo.h"

namespace gantry::cron {
namespace {

constexpr const char* kUsage = "usage: gantry cron list | gantry cron rm ID";

int listJobs(store::CronRepo& repo, const Zone& zone, std::ostream& out, std::ostream& err) {
  Result<std::vector<store::CronJob>> jobs = repo.list();
  if (!jobs.isOk()) {
    err << "gantry cron list: " << jobs.status().message() << "\n";
    return 1;
  }
  for (const store::CronJob& job : jobs.value()) {
    out << job.id << '\t' << text::tsvField(job.schedule) << '\t'
        << (job.next_run_at ? formatLocal(*job.next_run_at, zone.tz) : "none") << '\t'
        << text::tsvField(job.chat_id) << '\t' << text::tsvField(job.prompt) << '\n';
  }
  return 0;
}

std::optional<int64_t> parseId(const std::string& text) {
  if (text.empty() || text.size() > 18 ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  return std::stoll(text);
}

}  // namespace

int cronCommand(store::Store& store, const std::vector<std::string>& args, const Zone& zone,
                std::ostream& out, std::ostream& err) {
  store::CronRepo repo(store);
  if (args.size() == 1 && args[0] == "list") return listJobs(repo, zone, out, err);
  if (args.size() == 2 && args[0] == "rm") {
    return removeCommand(
        "cron", "job", "cron job", args[1], [&repo](int64_t id) { return repo.remove(id); }, out,
        err);
  }
  err << kUsage << "\n";
  return 2;
}

int removeCommand(const std::string& command, const std::string& noun, const std::string& what,
                  const std::string& id_text, const std::function<Result<bool>(int64_t)>& remove,
                  std::ostream& out, std::ostream& err) {
  const std::string prefix = "gantry " + command + " rm: ";
  const std::string see = " (see gantry " + command + " list)\n";
  std::optional<int64_t> id = parseId(id_text);
  if (!id) {
    err << prefix << "\"" << id_text << "\" is not a " << noun << " id" << see;
    return 2;
  }
  Result<bool> removed = remove(*id);
  if (!removed.isOk()) {
    err << prefix << removed.status().message() << "\n";
    return 1;
  }
  if (!removed.value()) {
    err << prefix << "no " << noun << " " << *id << see;
    return 1;
  }
  out << "removed " << what << " " << *id << "\n";
  return 0;
}

std::string cronStatusLine(store::Store& store, const Zone& zone, bool enabled) {
  if (!enabled) return "cron: off";
  store::CronRepo repo(store);
  Result<int64_t> count = repo.count();
  Result<std::optional<store::CronJob>> next = repo.nextToRun();
  if (!count.isOk()) return "cron: " + count.status().message();
  if (!next.isOk()) return "cron: " + next.status().message();
  std::string line =
      "cron: " + std::to_string(count.value()) + (count.value() == 1 ? " job" : " jobs");
  if (next.value()) {
    std::string when = formatLocal(*next.value()->next_run_at, zone.tz);
    std::replace(when.begin(), when.end(), 'T', ' ');
    line += ", next " + when + " " + zone.name;
  }
  return line;
}

}  // namespace gantry::cron
