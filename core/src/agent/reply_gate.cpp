#include "agent/reply_gate.h"

namespace gantry::agent {

void ReplyGate::push(std::string_view delta) {
  if (decided_ && !holding_) {
    if (!delta.empty()) emitted_ = true;
    emit_(delta);
    return;
  }
  held_.append(delta);
  auto first = held_.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return;  // only whitespace so far: undecided
  decided_ = true;
  char c = held_[first];
  holding_ = c == '{' || c == '`' || c == '<';
  if (!holding_) release();
}

void ReplyGate::release() {
  holding_ = false;
  decided_ = true;
  if (held_.empty()) return;
  emitted_ = true;
  emit_(held_);
  held_.clear();
}

}  // namespace gantry::agent
