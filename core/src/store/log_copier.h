#pragma once
/// LogCopier: copies the owner's write-ahead log back into the database on a thread of its
/// own, through a connection of its own, so that the commit that finds the log at its mark
/// (store/wal_checkpoints.h) returns at once. Done by that commit, the copy held up a turn in
/// a run of messages every ~125 turns for ~2,000 page writes and two fsyncs (bench_host: 3.8%
/// of the turns' thread's time, and 0.07 ms a turn blocked in fdatasync). SQLite lets one
/// connection copy the log while another writes; a reader still on older pages keeps them,
/// and the next copy takes the rest. Included by store/*.cpp only.

#include <mutex>
#include <string>
#include <thread>

namespace gantry::store {

/// Thread-safe. One copy at a time, each on a thread that ends with it.
class LogCopier final {
 public:
  /// path: the database file.
  explicit LogCopier(std::string path) : path_(std::move(path)) {}
  /// Waits for a copy under way (without the one more asked for meanwhile): destroyed before
  /// the owner's connection closes (Db declares it after the session).
  ~LogCopier();
  LogCopier(const LogCopier&) = delete;
  LogCopier& operator=(const LogCopier&) = delete;

  /// Asks for a copy and returns at once (starting a thread); requests made while one runs
  /// make one more.
  void request();
  /// Waits for the copy under way, if any (and the one more asked for meanwhile).
  void finish();
  /// A copy is asked for or under way. For tests.
  bool busy();

 private:
  void run();

  const std::string path_;
  std::mutex mutex_;
  bool requested_ = false;  ///< again, after the copy under way
  bool copying_ = false;    ///< a thread is copying; cleared as its last step
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace gantry::store
