#include "app/error_reporter.h"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include <chrono>

#include "log/log.h"

namespace gantry::app {
namespace {

constexpr std::size_t kQueueMax = 20;
constexpr int kBurst = 3;
constexpr std::chrono::seconds kRefill{10};

// Set on the reporter's thread: what it logs itself (a failed send) is never reported.
thread_local bool t_reporting = false;

// "repeated 3 times in the last 30 min": how a count of unreported repeats reads.
std::string repeatNote(std::size_t repeats) {
  return "repeated " + std::to_string(repeats) + (repeats == 1 ? " time" : " times") +
         " in the last " + std::to_string(ErrorReporter::kRepeatWindow.count()) + " min";
}

}  // namespace

std::string renderReport(std::string_view json_line, const Channel& channel) {
  try {
    Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));  // keep the line's order
    auto object = parser.parse(std::string(json_line)).extract<Poco::JSON::Object::Ptr>();
    std::string text = "⚠️ " + object->optValue<std::string>("level", "error") + ": " +
                       object->optValue<std::string>("msg", "");
    std::string fields;
    for (const auto& key : object->getNames()) {  // in the line's order
      if (key == "level" || key == "msg") continue;
      fields += (fields.empty() ? "" : "\n") + key + ": " + object->get(key).toString();
    }
    return fields.empty() ? text : text + "\n" + channel.quoteBlock(fields);
  } catch (const std::exception&) {
    return "⚠️ " + std::string(json_line);
  }
}

ErrorReporter::ErrorReporter(Channel& channel, std::string owner_chat, LogLevel min_level,
                             std::function<Clock::time_point()> clock)
    : channel_(channel),
      owner_chat_(std::move(owner_chat)),
      min_level_(min_level),
      clock_(std::move(clock)),
      thread_([this] { loop(); }) {
  log::setTap(&ErrorReporter::tap, this);
}

ErrorReporter::~ErrorReporter() {
  log::setTap(nullptr, nullptr);
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ErrorReporter::tap(void* self, LogLevel level, std::string_view line) {
  auto* reporter = static_cast<ErrorReporter*>(self);
  if (t_reporting || level < reporter->min_level_) return;
  reporter->enqueue(line);
}

void ErrorReporter::enqueue(std::string_view line) {
  {
    std::lock_guard lock(mutex_);
    std::size_t repeats = 0;
    if (!repeats_.admit(repeatKey(line), line, clock_(), &repeats)) return;
    if (queue_.size() >= kQueueMax) {
      ++dropped_;
      return;
    }
    queue_.push_back({std::string(line), repeats > 0 ? repeatNote(repeats) : std::string()});
  }
  cv_.notify_all();
}

// Called with mutex_ held, on the sender thread.
void ErrorReporter::queueSummaries() {
  for (RepeatFilter::Summary& summary : repeats_.due(clock_())) {
    if (queue_.size() >= kQueueMax) {
      ++dropped_;
      continue;
    }
    queue_.push_back({std::move(summary.last_line), repeatNote(summary.repeats)});
  }
}

// A token bucket: a burst of kBurst reports, then one per kRefill; the rest are counted.
void ErrorReporter::loop() {
  t_reporting = true;
  int tokens = kBurst;
  auto refill_at = std::chrono::steady_clock::now() + kRefill;
  std::unique_lock lock(mutex_);
  while (true) {
    cv_.wait_until(lock, refill_at, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    queueSummaries();
    if (std::chrono::steady_clock::now() >= refill_at) {
      tokens = std::min(kBurst, tokens + 1);
      refill_at = std::chrono::steady_clock::now() + kRefill;
    }
    if (queue_.empty() || tokens == 0) continue;
    std::string text = renderReport(queue_.front().line, channel_);
    if (!queue_.front().note.empty()) text += "\n(" + queue_.front().note + ")";
    queue_.pop_front();
    if (dropped_ > 0) text += "\n(" + std::to_string(dropped_) + " more not sent: rate limit)";
    dropped_ = 0;
    --tokens;
    lock.unlock();
    auto sent = channel_.send(owner_chat_, text);
    if (!sent.isOk()) log::warn("error_report_failed", {{"error", sent.status().message()}});
    lock.lock();
  }
}

}  // namespace gantry::app
