#pragma once
/// The MCP tool of gantry-fetch, `fetch(url)`, and the text it returns: status, final URL,
/// content type, bytes, a truncation note, then the page as readable text with its title
/// and links.

#include "common/stdio_server.h"
#include "fetch/fetcher.h"

namespace gantry::fetch {

/// The tool's text for a fetched response (HTML reduced to text, links resolved against
/// the final URL).
std::string describe(const FetchResult& result, std::uint64_t max_bytes);

/// Adds `fetch` to server; fetcher must outlive it.
void addFetchTool(toolserver::StdioServer& server, const Fetcher& fetcher, std::uint64_t max_bytes);

}  // namespace gantry::fetch
