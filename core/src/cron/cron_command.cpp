#include "cron/cron_command.h"

#include <algorithm>
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

int removeJob(store::CronRepo& repo, const std::string& id_text, std::ostream& out,
              std::ostream& err) {
  std::optional<int64_t> id = parseId(id_text);
  if (!id) {
    err << "gantry cron rm: \"" << id_text << "\" is not a job id (see gantry cron list)\n";
    return 2;
  }
  Result<bool> removed = repo.remove(*id);
  if (!removed.isOk()) {
    err << "gantry cron rm: " << removed.status().message() << "\n";
    return 1;
  }
  if (!removed.value()) {
    err << "gantry cron rm: no job " << *id << " (see gantry cron list)\n";
    return 1;
  }
  out << "removed cron job " << *id << "\n";
  return 0;
}

}  // namespace

int cronCommand(store::Store& store, const std::vector<std::string>& args, const Zone& zone,
                std::ostream& out, std::ostream& err) {
  store::CronRepo repo(store);
  if (args.size() == 1 && args[0] == "list") return listJobs(repo, zone, out, err);
  if (args.size() == 2 && args[0] == "rm") return removeJob(repo, args[1], out, err);
  err << kUsage << "\n";
  return 2;
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
