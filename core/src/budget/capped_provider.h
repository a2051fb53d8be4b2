#pragma once
/// CappedProvider: the last check before any model call, so nothing — a scheduled turn's
/// next round, a fold, consolidation, an API task — spends past the daily cap.

#include <string>

#include "budget/budget_gate.h"
#include "gantry/provider.h"

namespace gantry::budget {

class CappedProvider final : public Provider {
 public:
  /// kind names the work its calls are refused for in the record ("turn", "consolidation").
  /// inner and gate are not owned and must outlive it.
  CappedProvider(Provider& inner, BudgetGate& gate, std::string kind)
      : inner_(inner), gate_(gate), kind_(std::move(kind)) {}

  /// Past the cap: an error naming the cap, and no call. Otherwise inner's.
  Result<ChatResponse> chat(const ChatRequest& request, const StreamCallbacks* callbacks,
                            const CancelToken& cancel) noexcept override;
  std::string model() const noexcept override { return inner_.model(); }

 private:
  Provider& inner_;
  BudgetGate& gate_;
  std::string kind_;
};

}  // namespace gantry::budget
