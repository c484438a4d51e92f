#include "app/window_loader.h"

#include <utility>

namespace weft::app {

WindowLoader::WindowLoader(const std::string& path, const TraceInfo& info)
    : query_(path), info_(info), thread_([this] { run(); }) {}

WindowLoader::~WindowLoader() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void WindowLoader::request(const db::Window& window) {
  {
    std::lock_guard lock(mutex_);
    pending_ = window;
  }
  wake_.notify_one();
}

std::unique_ptr<LoadedWindow> WindowLoader::take_finished() {
  std::lock_guard lock(mutex_);
  return std::move(finished_);
}

void WindowLoader::recycle(std::unique_ptr<LoadedWindow> window) {
  if (!window) return;
  std::lock_guard lock(mutex_);
  spare_.push_back(std::move(window));
}

bool WindowLoader::busy() {
  std::lock_guard lock(mutex_);
  return loading_ || pending_.has_value();
}

std::string WindowLoader::error() {
  std::lock_guard lock(mutex_);
  return error_;
}

void WindowLoader::run() {
  for (;;) {
    db::Window window;
    std::unique_ptr<LoadedWindow> buffers;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || pending_.has_value(); });
      if (stopping_) return;
      window = *pending_;
      pending_.reset();
      loading_ = true;
      if (!spare_.empty()) {
        buffers = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    if (!buffers) buffers = std::make_unique<LoadedWindow>();
    try {
      load_window(query_, info_, window, *buffers);
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

}  // namespace weft::app
