#pragma once
// Loads timeline windows on a background thread so that the UI thread never
// waits on SQLite. Requests coalesce: only the newest pending request is
// served. Finished windows are handed over whole (a pointer swap) and handed
// back for reuse, so steady-state loading allocates nothing per event.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/timeline_data.h"
#include "store/window_query.h"

namespace weft::app {

class WindowLoader {
 public:
  // Opens its own connection to `path` (SQLite connections are not shared
  // between threads here). `info` must outlive the loader.
  WindowLoader(const std::string& path, const TraceInfo& info);
  ~WindowLoader();
  WindowLoader(const WindowLoader&) = delete;
  WindowLoader& operator=(const WindowLoader&) = delete;

  // Asks for `window`; replaces any request not yet started.
  void request(const db::Window& window);
  // The newest finished window, or null when none finished since the last call.
  std::unique_ptr<LoadedWindow> take_finished();
  // Returns a window the UI no longer draws, for its buffers to be reused.
  void recycle(std::unique_ptr<LoadedWindow> window);
  // True while a request is pending or being loaded.
  bool busy();
  // The error that stopped the loader thread, or "" (it stops on the first).
  std::string error();

 private:
  void run();

  db::WindowQuery query_;
  const TraceInfo& info_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool loading_ = false;
  std::optional<db::Window> pending_;
  std::unique_ptr<LoadedWindow> finished_;
  std::vector<std::unique_ptr<LoadedWindow>> spare_;
  std::string error_;
  std::thread thread_;  // last: starts after every member above exists
};

}  // namespace weft::app
