#include "store/background_sync.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <new>

namespace weft::db {
namespace {

std::atomic<std::int64_t> g_background_syncs{0};

// The stream of open_with_early_writeback: its descriptor and writeback.
struct EarlyWritebackStream {
  int fd;
  EarlyWriteback writeback;
};

ssize_t stream_write(void* cookie, const char* data, std::size_t size) {
  auto* s = static_cast<EarlyWritebackStream*>(cookie);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = write(s->fd, data + done, size - done);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) errno = EIO;  // no progress: do not spin
      break;                    // errno says why
    }
    done += static_cast<std::size_t>(n);
  }
  s->writeback.wrote(static_cast<std::int64_t>(done));
  return static_cast<ssize_t>(done);  // short (0 on error): stdio sets the stream's error flag
}

int stream_close(void* cookie) {
  auto* s = static_cast<EarlyWritebackStream*>(cookie);
  const int fd = s->fd;
  delete s;  // its sync finishes first
  return close(fd);
}

}  // namespace

BackgroundSync::BackgroundSync(int fd) : fd_(fd), thread_([this] { run(); }) {}

BackgroundSync::~BackgroundSync() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void BackgroundSync::request() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    wanted_ = true;
  }
  wake_.notify_one();
}

void BackgroundSync::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return wanted_ || stop_; });
    if (stop_) return;
    wanted_ = false;
    lock.unlock();
    if (fdatasync(fd_) == 0) g_background_syncs.fetch_add(1, std::memory_order_relaxed);
    lock.lock();
  }
}

void EarlyWriteback::wrote(std::int64_t bytes) noexcept {
  if (fd_ < 0) return;
  unwritten_ += bytes;
  if (unwritten_ >= kWritebackBytes) sync_soon();
}

void EarlyWriteback::sync_soon() noexcept {
  if (fd_ < 0 || unwritten_ == 0) return;
  unwritten_ = 0;
  if (!syncer_) {
    try {
      syncer_ = new BackgroundSync(fd_);
    } catch (...) {
      return;  // no thread: the owner's final sync does it all
    }
  }
  syncer_->request();
}

std::int64_t background_syncs() { return g_background_syncs.load(std::memory_order_relaxed); }

std::FILE* open_with_early_writeback(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return nullptr;
  auto* stream = new (std::nothrow) EarlyWritebackStream{fd, EarlyWriteback(fd)};
  if (!stream) {
    close(fd);
    errno = ENOMEM;
    return nullptr;
  }
  const cookie_io_functions_t functions{nullptr, stream_write, nullptr, stream_close};
  std::FILE* f = fopencookie(stream, "w", functions);
  if (!f) {
    const int error_number = errno;
    stream_close(stream);
    errno = error_number;
  }
  return f;
}

}  // namespace weft::db
