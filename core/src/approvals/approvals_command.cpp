#include "approvals/approvals_command.h"

#include <ostream>

#include "gantry/text/tsv_field.h"
#include "log/log.h"

namespace gantry::approvals {
namespace {

int list(Approvals& approvals, std::ostream& out, std::ostream& err) {
  auto pending = approvals.pending();
  if (!pending.isOk()) {
    err << "gantry approvals: " << pending.status().message() << "\n";
    return 1;
  }
  for (const auto& row : pending.value()) {
    out << row.id << '\t' << text::tsvField(row.chat_id) << '\t' << row.tool << '\t'
        << log::isoUtc(row.created_at) << '\t' << log::isoUtc(row.expires_at) << '\t'
        << text::tsvField(log::redact(row.arguments)) << '\n';
  }
  return 0;
}

int decide(Approvals& approvals, const std::string& id, bool approve, std::ostream& out,
           std::ostream& err) {
  const char* verb = approve ? "approve" : "deny";
  auto decided = approvals.decide(id, approve, "cli", {});
  if (!decided.isOk()) {
    err << "gantry " << verb << ": " << decided.status().message() << "\n";
    return 1;
  }
  out << (approve ? "approved " : "denied ") << decided->id << ": " << decided->tool << "\n";
  return 0;
}

/// The whole call, every argument in full, for the operator to read before deciding.
int show(Approvals& approvals, const std::string& id, std::ostream& out, std::ostream& err) {
  auto row = approvals.show(id);
  if (!row.isOk()) {
    err << "gantry approvals show: " << row.status().message() << "\n";
    return 1;
  }
  out << row->id << '\t' << row->tool << '\t' << store::approvalStateName(row->state) << '\t'
      << log::isoUtc(row->expires_at) << '\n'
      << argumentsText(row.value(), 0) << '\n';
  return 0;
}

}  // namespace

int approvalsCommand(Approvals& approvals, const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  if (args.size() == 1 && args[0] == "approvals") return list(approvals, out, err);
  if (args.size() == 3 && args[0] == "approvals" && args[1] == "show") {
    return show(approvals, args[2], out, err);
  }
  if (args.size() == 2 && (args[0] == "approve" || args[0] == "deny")) {
    return decide(approvals, args[1], args[0] == "approve", out, err);
  }
  err << "gantry: usage: gantry approvals [show ID] | gantry approve ID | gantry deny ID\n";
  return 2;
}

}  // namespace gantry::approvals
