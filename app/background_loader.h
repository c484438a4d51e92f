#pragma once
// Loads view windows on a background thread so that the UI thread never waits
// on SQLite. Requests coalesce: only the newest pending request is served.
// Finished results are handed over whole (a pointer swap) and handed back for
// reuse, so steady-state loading allocates nothing per event.
//
// The load function owns its database connection (SQLite connections are not
// shared between threads here); it runs only on the loader's thread.
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace weft::app {

template <class Request, class Result>
class BackgroundLoader {
 public:
  using LoadFunction = std::function<void(const Request&, Result&)>;

  explicit BackgroundLoader(LoadFunction load) : load_(std::move(load)), thread_([this] { run(); }) {}
  ~BackgroundLoader() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  BackgroundLoader(const BackgroundLoader&) = delete;
  BackgroundLoader& operator=(const BackgroundLoader&) = delete;

  // Asks for `request`; replaces any request not yet started.
  void request(const Request& request) {
    {
      std::lock_guard lock(mutex_);
      pending_ = request;
    }
    wake_.notify_one();
  }
  // The newest finished result, or null when none finished since the last call.
  std::unique_ptr<Result> take_finished() {
    std::lock_guard lock(mutex_);
    return std::move(finished_);
  }
  // Returns a result the UI no longer draws, for its buffers to be reused.
  void recycle(std::unique_ptr<Result> result) {
    if (!result) return;
    std::lock_guard lock(mutex_);
    spare_.push_back(std::move(result));
  }
  // True while a request is pending or being loaded.
  bool busy() {
    std::lock_guard lock(mutex_);
    return loading_ || pending_.has_value();
  }
  // The error that stopped the loader thread, or "" (it stops on the first).
  std::string error() {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  void run() {
    for (;;) {
      Request request;
      std::unique_ptr<Result> buffers;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || pending_.has_value(); });
        if (stopping_) return;
        request = *pending_;
        pending_.reset();
        loading_ = true;
        if (!spare_.empty()) {
          buffers = std::move(spare_.back());
          spare_.pop_back();
        }
      }
      if (!buffers) buffers = std::make_unique<Result>();
      try {
        load_(request, *buffers);
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex_);
        error_ = e.what();
        loading_ = false;
        return;
      }
      std::lock_guard lock(mutex_);
      // A result nobody took yet is superseded by this newer one.
      if (finished_) spare_.push_back(std::move(finished_));
      finished_ = std::move(buffers);
      loading_ = false;
    }
  }

  LoadFunction load_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool loading_ = false;
  std::optional<Request> pending_;
  std::unique_ptr<Result> finished_;
  std::vector<std::unique_ptr<Result>> spare_;
  std::string error_;
  std::thread thread_;  // last: starts after every member above exists
};

}  // namespace weft::app
