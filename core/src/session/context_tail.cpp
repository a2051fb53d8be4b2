#include "session/context_tail.h"

#include <algorithm>

#include "gantry/text/context_blocks.h"

namespace gantry::session {
namespace {

using text::kMemoryHead;
using text::kNowHead;

bool startsWith(std::string_view text, std::string_view head) {
  return text.substr(0, head.size()) == head;
}

// Calls row(line) for each row line of block, the head line left out.
template <class Fn>
void forEachRow(std::string_view block, Fn&& row) {
  if (!startsWith(block, kMemoryHead)) return;
  block.remove_prefix(kMemoryHead.size());
  while (!block.empty()) {
    auto end = block.find('\n');
    auto line = block.substr(0, end);
    if (!line.empty()) row(line);
    block.remove_prefix(end == std::string_view::npos ? block.size() : end + 1);
  }
}

// The rows of the block that sent (a message as sent) begins with, kept in rows; none when
// sent has no block. One pass over the block, as this runs for every user message of the
// history every turn (bench_host under callgrind: 0.28M instructions a turn when the block's
// end was found first and its rows walked after, 0.22M in one pass).
void shownRowsOf(std::string_view sent, std::vector<std::string_view>& rows) {
  rows.clear();
  if (!startsWith(sent, kMemoryHead)) return;
  for (std::size_t at = kMemoryHead.size(); at < sent.size();) {
    const std::size_t end = sent.find('\n', at);
    if (end == std::string_view::npos) break;
    if (end == at) return;  // the blank line that ends the block
    rows.push_back(sent.substr(at, end - at));
    at = end + 1;
  }
  rows.clear();  // no blank line: the words only look like a block
}

}  // namespace

std::string withContext(const std::string& memory_block, const std::string& now,
                        const std::string& text) {
  std::string sent;
  if (!memory_block.empty()) {
    sent += memory_block;
    if (memory_block.back() != '\n') sent += '\n';
    sent += '\n';
  }
  if (!now.empty()) sent += std::string(kNowHead) + now + "\n\n";
  return sent + text;
}

std::string_view userText(std::string_view sent) { return sent.substr(text::contextBytes(sent)); }

// The block's few rows are looked up among the many shown lines by length: hashing or
// comparing every shown line against every row cost more than the turn's other prompt work.
std::string withoutShownRows(std::string_view block, const std::vector<std::string_view>& sent) {
  std::vector<std::string_view> rows;
  forEachRow(block, [&](std::string_view line) { rows.push_back(line); });
  std::size_t longest = 0;
  for (auto row : rows) longest = std::max(longest, row.size());
  std::vector<std::vector<std::size_t>> of_length(longest + 1);
  for (std::size_t i = 0; i < rows.size(); ++i) of_length[rows[i].size()].push_back(i);
  std::vector<bool> seen(rows.size(), false);
  std::vector<std::string_view> shown;
  for (auto earlier : sent) {
    shownRowsOf(earlier, shown);
    for (auto line : shown) {
      if (line.size() > longest) continue;
      for (std::size_t i : of_length[line.size()]) seen[i] = seen[i] || rows[i] == line;
    }
  }
  std::string kept;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (seen[i]) continue;
    kept += rows[i];
    kept += '\n';
  }
  return kept.empty() ? std::string() : std::string(kMemoryHead) + kept;
}

}  // namespace gantry::session
