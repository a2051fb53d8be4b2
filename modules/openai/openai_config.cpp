#include "openai_config.h"

#include <charconv>

#include "Poco/Exception.h"
#include "Poco/Net/IPAddress.h"
#include "Poco/String.h"
#include "Poco/URI.h"

namespace gantry::openai {
namespace {

std::string value(const Host& host, std::string_view key) {
  return Poco::trim(host.config(key).value_or(""));
}

// An integer setting in [min, max]; the default when unset or empty.
Status readInt(const Host& host, std::string_view key, int min, int max, int* out) {
  std::string text = value(host, key);
  if (text.empty()) return Status::ok();
  int parsed = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (ec != std::errc() || end != text.data() + text.size() || parsed < min || parsed > max) {
    return Status::error("openai: " + std::string(key) + " must be an integer from " +
                         std::to_string(min) + " to " + std::to_string(max) + ", got \"" + text +
                         "\"");
  }
  *out = parsed;
  return Status::ok();
}

// Checks LLM_BASE_URL and sets the endpoint; *host_out receives the URL's host.
Status readBaseUrl(const Host& host, OpenAiConfig* config, std::string* host_out) {
  std::string base = value(host, "LLM_BASE_URL");
  if (base.empty()) {
    return Status::error("openai: LLM_BASE_URL is required (e.g. http://127.0.0.1:11434/v1)");
  }
  try {
    Poco::URI uri(base);
    if ((uri.getScheme() != "http" && uri.getScheme() != "https") || uri.getHost().empty()) {
      throw Poco::SyntaxException("not an http(s) URL");
    }
    *host_out = uri.getHost();
  } catch (const Poco::Exception&) {
    return Status::error("openai: LLM_BASE_URL \"" + base + "\" is not an http:// or https:// URL");
  }
  while (!base.empty() && base.back() == '/') base.pop_back();
  config->endpoint = base + "/chat/completions";
  return Status::ok();
}

}  // namespace

bool isLoopbackHost(std::string_view host) {
  std::string name = Poco::toLower(std::string(host));
  if (name == "localhost" || name == "localhost.") return true;
  Poco::Net::IPAddress address;
  return Poco::Net::IPAddress::tryParse(name, address) && address.isLoopback();
}

Result<OpenAiConfig> readConfig(const Host& host) {
  OpenAiConfig config;
  std::string url_host;
  Status status = readBaseUrl(host, &config, &url_host);
  if (!status.isOk()) return status;
  config.api_key = value(host, "LLM_API_KEY");
  if (config.api_key.empty() && !isLoopbackHost(url_host)) {
    return Status::error("openai: LLM_API_KEY is required for the non-loopback host \"" + url_host +
                         "\" of LLM_BASE_URL");
  }
  config.model = value(host, "LLM_MODEL");
  if (config.model.empty()) return Status::error("openai: LLM_MODEL is required");
  status = readInt(host, "LLM_MAX_TOKENS", 0, 10'000'000, &config.max_tokens);
  if (!status.isOk()) return status;
  status = readInt(host, "LLM_TIMEOUT_SECONDS", 1, 86'400, &config.timeout_seconds);
  if (!status.isOk()) return status;
  return config;
}

}  // namespace gantry::openai
