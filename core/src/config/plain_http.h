#pragma once
/// Where a credential would cross the network in clear: a plain http:// URL whose host is not
/// loopback. Checked at boot for every URL that travels with a secret (a module's base URL
/// beside its key or token, an MCP server's url beside its headers); ALLOW_INSECURE_HTTP=true
/// lets it through.

#include <string>

namespace gantry::config {

/// True for an http:// URL (any case) whose host is not 127.0.0.0/8, ::1 or a localhost name.
/// False for https, other schemes, loopback and text that is not a URL.
bool isPlainHttpToRemote(const std::string& url);

}  // namespace gantry::config
