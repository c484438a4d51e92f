#include "store/atomic_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <random>
#include <vector>

#include "common/error.h"

namespace weft::db {
namespace {

// The temporary file the signal handler removes, and the line it prints. Fixed
// buffers because a signal handler may only touch async-signal-safe state; one
// output is written at a time per process, so one slot is enough (a nested one
// is cleaned up by its destructor and its guardian, not by the handler).
char g_signal_cleanup_path[4096];
char g_signal_message[4352];
std::size_t g_signal_message_size = 0;
volatile sig_atomic_t g_signal_cleanup_armed = 0;
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_previous[3] {};

extern "C" void remove_temp_and_reraise(int signo) {
  if (g_signal_cleanup_armed) {
    unlink(g_signal_cleanup_path);
    ssize_t ignored = write(STDERR_FILENO, g_signal_message, g_signal_message_size);
    (void)ignored;
  }
  // Restore the default action and re-raise so the exit status says "killed by signal".
  signal(signo, SIG_DFL);
  raise(signo);
}

bool arm_signal_cleanup(const std::string& path, const std::string& output) {
  if (g_signal_cleanup_armed || path.size() >= sizeof(g_signal_cleanup_path)) return false;
  std::memcpy(g_signal_cleanup_path, path.c_str(), path.size() + 1);
  std::string line = "\nweft: " + output.substr(0, 4096) + ": interrupted, output not written\n";
  std::memcpy(g_signal_message, line.data(), line.size());
  g_signal_message_size = line.size();
  g_signal_cleanup_armed = 1;
  struct sigaction action {};
  action.sa_handler = remove_temp_and_reraise;
  sigemptyset(&action.sa_mask);
  for (int signo : kCleanupSignals) sigaddset(&action.sa_mask, signo);
  for (std::size_t i = 0; i < std::size(kCleanupSignals); ++i)
    sigaction(kCleanupSignals[i], &action, &g_previous[i]);
  return true;
}

void disarm_signal_cleanup() {
  for (std::size_t i = 0; i < std::size(kCleanupSignals); ++i)
    sigaction(kCleanupSignals[i], &g_previous[i], nullptr);
  g_signal_cleanup_armed = 0;
}

// The guardian's whole life, in the forked child: only async-signal-safe
// calls (the parent may have other threads). `paths` are prepared before the
// fork, NUL-separated.
[[noreturn]] void guardian_main(int read_fd, const char* paths, std::size_t count) {
  setpgid(0, 0);
  for (int signo : kCleanupSignals) signal(signo, SIG_IGN);
  // Keep nothing of the parent open: a pipe the parent's caller reads to EOF
  // (a shell's $(...), a test harness) must not wait for the guardian.
  if (read_fd > 0) close_range(0, static_cast<unsigned>(read_fd) - 1, 0);
  close_range(static_cast<unsigned>(read_fd) + 1, ~0u, 0);
  char verdict = 0;
  ssize_t n;
  do n = read(read_fd, &verdict, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1 || verdict != 'c') {
    const char* p = paths;
    for (std::size_t i = 0; i < count; ++i) {
      unlink(p);
      p += std::strlen(p) + 1;
    }
  }
  _exit(0);
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::atomic<std::int64_t> g_disk_syncs{0};

}  // namespace

std::int64_t atomic_output_disk_syncs() { return g_disk_syncs.load(); }

int sync_to_disk(const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return errno;
  int error_number = 0;
  while (fsync(fd) != 0)
    if (errno != EINTR) {
      error_number = errno;
      break;
    }
  close(fd);
  return error_number;
}

std::string write_error_text(int error_number) {
  if (error_number == ENOSPC || error_number == EDQUOT)
    return std::string("disk full (") + std::strerror(error_number) + ")";
  return std::strerror(error_number);
}

AtomicOutput::AtomicOutput(const std::string& output_path, bool overwrite)
    : output_path_(output_path) {
  struct stat st {};
  if (stat(output_path.c_str(), &st) == 0) {
    if (!overwrite) throw Error(output_path, "output exists (use --force to replace it)");
    if (S_ISDIR(st.st_mode)) throw Error(output_path, "output is a directory");
  }
  // The guardian and the signal handler learn the name before the file
  // exists, so there is no moment at which a killed writer leaves a file
  // nobody will remove. The name is random; O_EXCL makes it ours.
  std::random_device random;
  for (int attempt = 0;; ++attempt) {
    static const char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::string name = output_path + ".tmp-";
    for (int i = 0; i < 6; ++i) name += kLetters[random() % (sizeof kLetters - 1)];
    temp_path_ = name;
    start_guardian();
    signal_armed_ = arm_signal_cleanup(temp_path_, output_path_);
    int fd = open(temp_path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      close(fd);
      return;
    }
    const int error_number = errno;
    // Not ours (or not created): the guardian and the handler must leave it alone.
    if (signal_armed_) disarm_signal_cleanup();
    signal_armed_ = false;
    release_guardian('c');
    if (error_number != EEXIST || attempt == 100)
      throw Error(output_path, "cannot create temporary output: " + write_error_text(error_number));
  }
}

void AtomicOutput::start_guardian() {
  std::string paths;
  for (const char* side : {"", "-journal", "-wal", "-shm"}) {
    paths += temp_path_ + side;
    paths.push_back('\0');
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;  // no guardian: errors and signals still clean up
  pid_t pid = fork();
  if (pid == 0) guardian_main(fds[0], paths.data(), 4);
  close(fds[0]);
  if (pid < 0) {
    close(fds[1]);
    return;
  }
  guardian_fd_ = fds[1];
  guardian_pid_ = pid;
}

// Tells the guardian how things ended ('c': committed, keep the file; anything
// else: remove it) and reaps it, so no zombie outlives the writer.
void AtomicOutput::release_guardian(char verdict) {
  if (guardian_fd_ < 0) return;
  ssize_t ignored = write(guardian_fd_, &verdict, 1);
  (void)ignored;
  close(guardian_fd_);
  guardian_fd_ = -1;
  while (waitpid(guardian_pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  guardian_pid_ = -1;
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) unlink(temp_path_.c_str());
  release_guardian(committed_ ? 'c' : 'x');
  if (signal_armed_) disarm_signal_cleanup();
}

void AtomicOutput::commit() {
  // The writers skip syncs while they write (SQLite's synchronous=OFF): the
  // data reaches the disk here, before the rename can replace a previous
  // output, so that a power cut leaves the old file or the whole new one.
  // A file system that allocates late reports a full disk only now.
  if (const int error_number = sync_to_disk(temp_path_, O_RDONLY))
    throw Error(output_path_, "cannot write the output to disk: " + write_error_text(error_number));
  ++g_disk_syncs;
  // The temporary is created 0600; a run file should have the usual permissions.
  mode_t mask = umask(0);
  umask(mask);
  chmod(temp_path_.c_str(), 0666 & ~mask);
  if (rename(temp_path_.c_str(), output_path_.c_str()) != 0)
    throw Error(output_path_, "cannot rename the finished output into place: " + write_error_text(errno));
  committed_ = true;
  // The rename is on the disk once the directory is. Not reported when that
  // fails: the output is complete and in place, only its name might not
  // survive a power cut.
  if (sync_to_disk(directory_of(output_path_), O_RDONLY | O_DIRECTORY) == 0) ++g_disk_syncs;
  release_guardian('c');
}

}  // namespace weft::db
