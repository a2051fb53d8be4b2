#include "log/redactor.h"

#include <Poco/Base64Encoder.h>
#include <Poco/URI.h>

#include <algorithm>
#include <sstream>

#include "log/log.h"

namespace gantry::log {
namespace {

/// Base64 of the whole 3-byte groups of bytes (no padding: the tail depends on what follows).
std::string base64(std::string_view bytes, int options) {
  bytes = bytes.substr(0, bytes.size() - bytes.size() % 3);
  std::ostringstream out;
  Poco::Base64Encoder encoder(out, options | Poco::BASE64_NO_PADDING);
  encoder.rdbuf()->setLineLength(0);
  encoder.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  encoder.close();
  return out.str();
}

std::vector<std::string> lines(const std::string& value) {
  std::vector<std::string> out;
  std::istringstream in(value);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
  return out;
}

}  // namespace

void Redactor::add(const std::string& name, const std::string& value) {
  const std::string marker = "[redacted:" + name + "]";
  addForm(value, marker);
  addForm(jsonEscape(value), marker);
  std::string url;
  Poco::URI::encode(value, "!#$&'()*+,/:;=?@[]", url);
  addForm(url, marker);
  if (value.find('\n') != std::string::npos) {
    for (const auto& line : lines(value)) addForm(line, marker);
  }
  // Where the value starts inside an encoded stream decides its encoding: a start one or two
  // bytes into a 3-byte group shifts every character, so each alignment has its own form.
  for (std::size_t skip = 0; skip < 3 && skip < value.size(); ++skip) {
    const std::string_view rest = std::string_view(value).substr(skip);
    addForm(base64(rest, 0), marker);
    addForm(base64(rest, Poco::BASE64_URL_ENCODING), marker);
  }
}

void Redactor::addForm(std::string form, const std::string& marker) {
  if (form.size() < kMinLength) return;
  for (const auto& [known, ignored] : forms_) {
    if (known == form) return;
  }
  forms_.emplace_back(std::move(form), marker);
  std::stable_sort(forms_.begin(), forms_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string Redactor::apply(std::string text) const {
  for (const auto& [form, marker] : forms_) {
    for (auto at = text.find(form); at != std::string::npos;
         at = text.find(form, at + marker.size())) {
      text.replace(at, form.size(), marker);
    }
  }
  return text;
}

std::size_t Redactor::partialTail(std::string_view text) const {
  std::size_t longest = 0;
  for (const auto& [form, marker] : forms_) {
    std::size_t most = std::min(form.size() - 1, text.size());
    for (std::size_t n = most; n > longest; --n) {
      if (text.substr(text.size() - n) == std::string_view(form).substr(0, n)) {
        longest = n;
        break;
      }
    }
  }
  return longest;
}

}  // namespace gantry::log
