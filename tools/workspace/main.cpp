// gantry-workspace: an MCP stdio server confined to one directory (DESIGN 11).
//
//   gantry-workspace --root DIR [--write] [--delete] [--allow-exec-files] [--max-file-bytes N]
//                    [--max-list N] [--resolve=auto|openat2|walk]
#include <unistd.h>

#include <iostream>

#include "common/cli_args.h"
#include "workspace/workspace_tools.h"

namespace {

using namespace gantry;

constexpr const char* kUsage =
    "usage: gantry-workspace --root DIR [--write] [--delete] [--allow-exec-files] "
    "[--max-file-bytes N] "
    "[--max-list N] [--resolve=auto|openat2|walk]";

Result<workspace::Resolver> resolverFrom(const std::string& name) {
  if (name == "auto") return workspace::Resolver::kAuto;
  if (name == "openat2") return workspace::Resolver::kOpenat2;
  if (name == "walk") return workspace::Resolver::kWalk;
  return Status::error("--resolve: expected auto, openat2 or walk, got '" + name + "'");
}

int usageError(const std::string& message) {
  std::cerr << "gantry-workspace: " << message << "\n" << kUsage << "\n";
  return 2;
}

struct Options {
  std::string root;
  workspace::Resolver resolver = workspace::Resolver::kAuto;
  workspace::Limits limits;
  workspace::Grants grants;
};

Result<Options> options(const toolserver::CliArgs& args) {
  Options out;
  out.root = args.last("root");
  if (out.root.empty()) return Status::error("--root is required");
  auto resolver = resolverFrom(args.last("resolve", "auto"));
  if (!resolver.isOk()) return resolver.status();
  auto max_bytes = args.number("max-file-bytes", out.limits.max_file_bytes);
  if (!max_bytes.isOk()) return max_bytes.status();
  auto max_list = args.number("max-list", out.limits.max_list);
  if (!max_list.isOk()) return max_list.status();
  out.resolver = resolver.value();
  out.limits.max_file_bytes = max_bytes.value();
  out.limits.max_list = max_list.value();
  out.limits.exec_files = args.has("allow-exec-files");
  out.grants = {args.has("write"), args.has("delete")};
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  auto args = toolserver::parseCli(argc, argv, {"root", "max-file-bytes", "max-list", "resolve"},
                                   {"write", "delete", "allow-exec-files", "help"});
  if (!args.isOk()) return usageError(args.status().message());
  if (args->has("help")) return std::cout << kUsage << "\n", 0;
  auto opts = options(args.value());
  if (!opts.isOk()) return usageError(opts.status().message());
  auto root = workspace::ConfinedRoot::open(opts->root, opts->resolver);
  if (!root.isOk()) return std::cerr << "gantry-workspace: " << root.status().message() << "\n", 1;
  toolserver::StdioServer server("gantry-workspace", GANTRY_VERSION);
  workspace::addTools(server, root.value(), opts->limits, opts->grants);
  return server.run(STDIN_FILENO);
}
