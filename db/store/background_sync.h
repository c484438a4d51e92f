#pragma once
// Early writeback for the files weft writes: a thread of the file's own
// fdatasyncs it in the background every 8 MiB written, so that the sync that
// makes the whole file durable (SQLite's commit, AtomicOutput::commit) waits
// for the last few MiB instead of all of it. On these VMs starting the
// kernel's writeback (sync_file_range) was not enough: the pages only moved
// into the host's cache, and the final sync still waited while the host wrote
// them all out (0.3 s for the 200 MB of a 16,384-process import).
//
// Used by the SQLite VFS of store/writeback_vfs.h and by
// open_with_early_writeback for the exporters' text files.
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace weft::db {

// Bytes written between two background syncs.
inline constexpr std::int64_t kWritebackBytes = std::int64_t{8} << 20;

// A thread that fdatasyncs one file whenever asked, without making the asker
// wait. Asked again while a sync is under way, it syncs once more after it.
// Only timing: a failed background sync is not reported, the owner's final
// sync reports the error.
class BackgroundSync {
 public:
  explicit BackgroundSync(int fd);
  // Waits for the sync under way, if any (not for one only asked for).
  ~BackgroundSync();
  BackgroundSync(const BackgroundSync&) = delete;
  BackgroundSync& operator=(const BackgroundSync&) = delete;

  void request();

 private:
  void run();

  const int fd_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool wanted_ = false, stop_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

// Counts the bytes written to one file and asks its BackgroundSync (started
// at the first 8 MiB) for a sync every 8 MiB. Never throws: without a thread
// (none can be started) the file is synced by its owner alone.
class EarlyWriteback {
 public:
  explicit EarlyWriteback(int fd) noexcept : fd_(fd) {}
  ~EarlyWriteback() { delete syncer_; }  // waits for its sync, which uses fd
  EarlyWriteback(const EarlyWriteback&) = delete;
  EarlyWriteback& operator=(const EarlyWriteback&) = delete;

  void wrote(std::int64_t bytes) noexcept;
  // Asks for a background sync of what was written since the last one now,
  // rather than at the next 8 MiB: for a writer that has written its bulk
  // and will sync soon (a commit), which then waits for less.
  void sync_soon() noexcept;

 private:
  const int fd_;
  std::int64_t unwritten_ = 0;  // bytes since the last sync was asked for
  BackgroundSync* syncer_ = nullptr;
};

// Background syncs done so far in this process (for tests).
std::int64_t background_syncs();

// `path` (existing or not) truncated and opened for writing as a stdio
// stream with early writeback; fclose ends it. Null with errno set when the
// file cannot be opened.
std::FILE* open_with_early_writeback(const std::string& path);

}  // namespace weft::db
