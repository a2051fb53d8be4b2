#include "memory/memory_command.h"

#include <charconv>

#include "gantry/text/tsv_field.h"
#include "log/log.h"
#include "store/memory_repo.h"

namespace gantry::memory {
namespace {

constexpr const char* kUsage =
    "usage: gantry memory list [--kind fact|preference|person|episode|insight] [--conflicts]\n"
    "       gantry memory search QUERY\n"
    "       gantry memory forget ID\n";
constexpr int kSearchLimit = 50;

int usage(std::ostream& err, const std::string& problem) {
  err << "gantry memory: " << problem << "\n" << kUsage;
  return 2;
}

std::string state(const store::MemoryRow& row, int64_t now_ms) {
  if (row.superseded_by != 0) return "superseded_by=" + std::to_string(row.superseded_by);
  return row.active(now_ms) ? "active" : "expired";
}

void printRows(const std::vector<store::MemoryRow>& rows, std::ostream& out) {
  int64_t now_ms = store::nowMs();
  for (const auto& row : rows) {
    out << row.id << '\t' << row.kind << '\t' << row.source << '\t' << state(row, now_ms) << '\t'
        << log::isoUtc(row.created_at) << '\t' << text::tsvField(row.subject) << '\t'
        << text::tsvField(row.content) << '\n';
  }
}

int printConflicts(store::MemoryRepo& repo, std::ostream& out, std::ostream& err) {
  auto conflicts = repo.conflicts(true);
  if (!conflicts.isOk()) {
    err << conflicts.status().message() << "\n";
    return 1;
  }
  for (const auto& c : conflicts.value()) {
    out << c.id << '\t' << (c.resolved ? "resolved" : "open") << '\t' << log::isoUtc(c.created_at)
        << '\t' << text::tsvField(c.memory_subject) << '\t' << text::tsvField(c.memory_content)
        << '\t' << text::tsvField(c.persona_excerpt) << '\n';
  }
  return 0;
}

int list(store::MemoryRepo& repo, const std::vector<std::string>& args, std::ostream& out,
         std::ostream& err) {
  std::string kind;
  bool conflicts = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--conflicts") {
      conflicts = true;
    } else if (args[i] == "--kind" && i + 1 < args.size() && store::isMemoryKind(args[i + 1])) {
      kind = args[++i];
    } else {
      return usage(err, "list: unexpected argument '" + args[i] + "'");
    }
  }
  if (conflicts) return printConflicts(repo, out, err);
  auto rows = repo.list(kind);
  if (!rows.isOk()) {
    err << rows.status().message() << "\n";
    return 1;
  }
  printRows(rows.value(), out);
  return 0;
}

int search(store::MemoryRepo& repo, const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err) {
  std::string query;
  for (std::size_t i = 1; i < args.size(); ++i) query += (i > 1 ? " " : "") + args[i];
  if (query.empty()) return usage(err, "search: QUERY is missing");
  auto rows = repo.search(query, kSearchLimit);
  if (!rows.isOk()) {
    err << rows.status().message() << "\n";
    return 1;
  }
  printRows(rows.value(), out);
  return 0;
}

int forget(store::MemoryRepo& repo, const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err) {
  if (args.size() != 2) return usage(err, "forget: exactly one ID is expected");
  const std::string& text = args[1];
  int64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id <= 0) {
    return usage(err, "forget: ID must be a positive integer, not '" + text + "'");
  }
  auto removed = repo.forgetById(id);
  if (!removed.isOk()) {
    err << removed.status().message() << "\n";
    return 1;
  }
  if (removed.value().empty()) {
    err << "gantry memory: no memory with id " << id << " (see gantry memory list)\n";
    return 1;
  }
  printRows(removed.value(), out);
  return 0;
}

}  // namespace

int memoryCommand(store::Store& store, const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err) {
  if (args.empty()) return usage(err, "a subcommand is required");
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    out << kUsage;
    return 0;
  }
  store::MemoryRepo repo(store);
  if (args[0] == "list") return list(repo, args, out, err);
  if (args[0] == "search") return search(repo, args, out, err);
  if (args[0] == "forget") return forget(repo, args, out, err);
  return usage(err, "unknown subcommand '" + args[0] + "'");
}

}  // namespace gantry::memory
