#pragma once
/// What a local model's prompt cache could keep of a request (/tokens): the estimated tokens
/// of the messages it repeats, unchanged and in order, from the start of the chat's previous
/// request. A model cache keeps bytes, not messages; this counts whole messages, an estimate
/// like every token count here. Pure.

#include <cstddef>
#include <vector>

#include "gantry/provider.h"

namespace gantry::agent {

/// One part of a request (the tool schemas, then each message): a hash of its bytes and its
/// estimated tokens.
struct PrintPart {
  std::size_t hash = 0;
  std::size_t est_tokens = 0;
};
using PromptPrint = std::vector<PrintPart>;

/// The parts of request, in the order they are sent.
PromptPrint promptPrint(const ChatRequest& request);

/// The estimated tokens of now's leading parts that equal before's.
std::size_t keptTokens(const PromptPrint& before, const PromptPrint& now);

/// The estimated tokens of all of print.
std::size_t printTokens(const PromptPrint& print);

}  // namespace gantry::agent
