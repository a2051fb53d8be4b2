#pragma once
/// Redactor: replaces registered secret values, and the forms they commonly take inside
/// other text, with "[redacted:NAME]". Pure; not thread-safe (log.cpp guards its instance).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gantry::log {

class Redactor {
 public:
  /// Registers value under name. Besides the value itself: each line of a multi-line value,
  /// its JSON-string and URL escapes, and its standard and URL-safe base64 at each of the
  /// three byte alignments it can have inside a longer encoded text. Pieces shorter than
  /// kMinLength are not registered (they would redact ordinary words).
  void add(const std::string& name, const std::string& value);
  /// text with every registered form replaced, longest forms first.
  std::string apply(std::string text) const;
  /// The length of the longest end of text that begins a registered form without completing
  /// it: what a stream must hold back until the next piece shows whether a secret follows.
  std::size_t partialTail(std::string_view text) const;

  static constexpr std::size_t kMinLength = 4;

 private:
  void addForm(std::string form, const std::string& marker);

  std::vector<std::pair<std::string, std::string>> forms_;  ///< (form, marker), longest first
};

}  // namespace gantry::log
