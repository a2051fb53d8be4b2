#include "mcp/sse_reader.h"

#include <algorithm>

namespace gantry::mcp {
namespace {

/// How much of an oversize event is kept at each end to find the request it answers.
constexpr std::size_t kKeep = 4096;

void keepTail(std::string* tail, std::string_view piece) {
  tail->append(piece.size() > kKeep ? piece.substr(piece.size() - kKeep) : piece);
  if (tail->size() > kKeep) tail->erase(0, tail->size() - kKeep);
}

bool allDigits(std::string_view text) {
  return !text.empty() && text.size() < 10 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

SseReader::SseReader(std::size_t cap, OnEvent on_event, OnOversize on_oversize)
    : cap_(cap), on_event_(std::move(on_event)), on_oversize_(std::move(on_oversize)) {}

void SseReader::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    if (after_cr_ && bytes.front() == '\n') bytes.remove_prefix(1);  // the LF of a CRLF
    after_cr_ = false;
    const auto end = bytes.find_first_of("\r\n");
    appendLine(bytes.substr(0, end));
    if (end == std::string_view::npos) return;
    after_cr_ = bytes[end] == '\r';
    bytes.remove_prefix(end + 1);
    endLine();
  }
}

void SseReader::finish() {
  if (!line_.empty() || line_dropped_ > 0) endLine();
  dispatch();
}

void SseReader::appendLine(std::string_view piece) {
  const std::size_t room = line_.size() < cap_ ? cap_ - line_.size() : 0;
  line_.append(piece.substr(0, room));
  if (piece.size() <= room) return;
  line_dropped_ += piece.size() - room;
  keepTail(&line_tail_, piece.substr(room));
}

void SseReader::endLine() {
  std::string_view line(line_);
  if (line.empty() && line_dropped_ == 0) {
    dispatch();
  } else if (line.substr(0, 1) != ":") {  // a leading colon marks a comment
    const auto colon = line.find(':');
    std::string_view value;
    if (colon != std::string_view::npos) {
      value = line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    }
    field(line.substr(0, colon), value);
  }
  line_.clear();
  line_tail_.clear();
  line_dropped_ = 0;
}

void SseReader::field(std::string_view name, std::string_view value) {
  if (name == "data") return appendData(value);
  if (line_dropped_ > 0) return;  // an id or retry that long is garbage
  if (name == "id" && value.find('\0') == std::string_view::npos) last_id_ = value;
  if (name == "retry" && allDigits(value))
    retry_ = std::chrono::milliseconds(std::stoi(std::string(value)));
}

void SseReader::appendData(std::string_view value) {
  const std::size_t separator = data_started_ ? 1 : 0;
  data_started_ = true;
  if (!oversize_ && line_dropped_ == 0 && data_.size() + separator + value.size() <= cap_) {
    data_.append(separator, '\n');
    data_.append(value);
    return;
  }
  if (!oversize_) {
    oversize_ = true;
    oversize_length_ = data_.size();
    oversize_head_ = data_.substr(0, kKeep);
    data_.clear();
  }
  if (oversize_head_.size() < kKeep)
    oversize_head_.append(value.substr(0, kKeep - oversize_head_.size()));
  oversize_length_ += separator + value.size() + line_dropped_;
  keepTail(&oversize_tail_, value);
  if (line_dropped_ > 0) keepTail(&oversize_tail_, line_tail_);
}

void SseReader::dispatch() {
  if (oversize_) {
    on_oversize_(oversize_head_, oversize_tail_, oversize_length_);
  } else if (!data_.empty()) {
    on_event_(data_);
  }
  data_.clear();
  data_started_ = false;
  oversize_ = false;
  oversize_length_ = 0;
  oversize_head_.clear();
  oversize_tail_.clear();
}

}  // namespace gantry::mcp
