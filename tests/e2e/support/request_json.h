#pragma once
// Byte-exact views of a chat-completions request body as the fake model received it, for
// tests that compare what was sent from one request to the next (prompt-cache prefixes).

#include <string>

namespace gantry::e2e {

/// The JSON array after `"key":` in body, from its '[' to the matching ']' (both included),
/// byte for byte; "" when body has no such array.
std::string jsonArray(const std::string& body, const std::string& key);

}  // namespace gantry::e2e
