// gantry-fetch: an MCP stdio server that GETs pages on an exact-host allowlist (DESIGN 11).
//
//   gantry-fetch --allow HOST[:PORT][=CIDR] [--allow ...] [--max-bytes N] [--timeout S]
//                [--hosts FILE] [--allow-loopback (tests only)]
#include <Poco/Net/SSLManager.h>
#include <unistd.h>

#include <iostream>

#include "common/cli_args.h"
#include "fetch/fetch_tool.h"

namespace {

using namespace gantry;

constexpr const char* kUsage =
    "usage: gantry-fetch --allow HOST[:PORT][=CIDR] [--allow ...] [--max-bytes N] [--timeout S] "
    "[--hosts FILE]";

int usageError(const std::string& message) {
  std::cerr << "gantry-fetch: " << message << "\n" << kUsage << "\n";
  return 2;
}

Result<fetch::FetchOptions> options(const toolserver::CliArgs& args) {
  fetch::FetchOptions out;
  auto it = args.values.find("allow");
  if (it == args.values.end()) return Status::error("at least one --allow HOST is required");
  auto allow = fetch::Allowlist::parse(it->second);
  if (!allow.isOk()) return allow.status();
  auto max_bytes = args.number("max-bytes", out.max_bytes);
  if (!max_bytes.isOk()) return max_bytes.status();
  auto timeout = args.number("timeout", static_cast<std::uint64_t>(out.timeout.count()));
  if (!timeout.isOk()) return timeout.status();
  out.allow = std::move(allow.value());
  out.max_bytes = max_bytes.value();
  out.timeout = std::chrono::seconds(timeout.value());
  out.allow_loopback = args.has("allow-loopback");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  auto args = toolserver::parseCli(argc, argv, {"allow", "max-bytes", "timeout", "hosts"},
                                   {"allow-loopback", "help"});
  if (!args.isOk()) return usageError(args.status().message());
  if (args->has("help")) return std::cout << kUsage << "\n", 0;
  auto opts = options(args.value());
  if (!opts.isOk()) return usageError(opts.status().message());
  auto resolver = fetch::HostResolver::load(args->last("hosts"));
  if (!resolver.isOk()) return usageError(resolver.status().message());
  Poco::Net::initializeSSL();
  const auto max_bytes = opts->max_bytes;
  fetch::Fetcher fetcher(std::move(opts.value()), std::move(resolver.value()));
  toolserver::StdioServer server("gantry-fetch", GANTRY_VERSION);
  fetch::addFetchTool(server, fetcher, max_bytes);
  const int code = server.run(STDIN_FILENO);
  Poco::Net::uninitializeSSL();
  return code;
}
