#pragma once
/// The provider's configuration, read once from the host at construction.

#include <string>
#include <string_view>

#include "gantry/host.h"
#include "gantry/status.h"

namespace gantry::openai {

/// Validated LLM_* settings.
struct OpenAiConfig {
  std::string endpoint;  ///< {LLM_BASE_URL}/chat/completions
  std::string api_key;   ///< empty: no Authorization header (loopback servers only)
  std::string model;
  int max_tokens = 4096;      ///< 0: left to the server
  int timeout_seconds = 300;  ///< whole-call limit
};

/// Reads LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_MAX_TOKENS and LLM_TIMEOUT_SECONDS.
/// Fails with one line naming the variable and what to fix. LLM_API_KEY may only be
/// missing when the base URL's host is loopback (127.0.0.0/8, ::1, localhost).
Result<OpenAiConfig> readConfig(const Host& host);

/// True for localhost, 127.0.0.0/8 and ::1.
bool isLoopbackHost(std::string_view host);

}  // namespace gantry::openai
