#include "budget/capped_provider.h"

namespace gantry::budget {

Result<ChatResponse> CappedProvider::chat(const ChatRequest& request,
                                          const StreamCallbacks* callbacks,
                                          const CancelToken& cancel) noexcept {
  try {
    if (auto refused = gate_.unattended(kind_, "model call refused", "")) {
      return Status::error("skipped: " + *refused);
    }
  } catch (const std::exception& e) {
    return Status::error(std::string("budget: ") + e.what());
  }
  return inner_.chat(request, callbacks, cancel);
}

}  // namespace gantry::budget
