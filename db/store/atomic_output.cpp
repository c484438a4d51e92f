#include "store/atomic_output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

#include "common/error.h"

namespace weft::db {
namespace {

// The temporary file the signal handler removes. A fixed buffer because a
// signal handler may only touch async-signal-safe state; one import runs at a
// time per process, so one slot is enough (a nested one simply is not cleaned
// up by the handler, only by its destructor).
char g_signal_cleanup_path[4096];
volatile sig_atomic_t g_signal_cleanup_armed = 0;
struct sigaction g_previous_int {};
struct sigaction g_previous_term {};

extern "C" void remove_temp_and_reraise(int signo) {
  if (g_signal_cleanup_armed) unlink(g_signal_cleanup_path);
  // Restore the default action and re-raise so the exit status says "killed by signal".
  signal(signo, SIG_DFL);
  raise(signo);
}

bool arm_signal_cleanup(const std::string& path) {
  if (g_signal_cleanup_armed || path.size() >= sizeof(g_signal_cleanup_path)) return false;
  std::memcpy(g_signal_cleanup_path, path.c_str(), path.size() + 1);
  g_signal_cleanup_armed = 1;
  struct sigaction action {};
  action.sa_handler = remove_temp_and_reraise;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
  return true;
}

void disarm_signal_cleanup() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
  g_signal_cleanup_armed = 0;
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

AtomicOutput::AtomicOutput(const std::string& output_path, bool overwrite)
    : output_path_(output_path) {
  struct stat st {};
  if (stat(output_path.c_str(), &st) == 0) {
    if (!overwrite) throw Error(output_path, "output exists (use --force to replace it)");
    if (S_ISDIR(st.st_mode)) throw Error(output_path, "output is a directory");
  }
  std::vector<char> pattern(output_path.begin(), output_path.end());
  const char suffix[] = ".tmp-XXXXXX";
  pattern.insert(pattern.end(), suffix, suffix + sizeof(suffix));  // includes the NUL
  int fd = mkstemp(pattern.data());
  if (fd < 0) throw Error(output_path, "cannot create temporary output: " + errno_text());
  close(fd);
  temp_path_ = pattern.data();
  signal_armed_ = arm_signal_cleanup(temp_path_);
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) unlink(temp_path_.c_str());
  if (signal_armed_) disarm_signal_cleanup();
}

void AtomicOutput::commit() {
  // mkstemp creates the file 0600; a run file should have the usual permissions.
  mode_t mask = umask(0);
  umask(mask);
  chmod(temp_path_.c_str(), 0666 & ~mask);
  if (rename(temp_path_.c_str(), output_path_.c_str()) != 0)
    throw Error(output_path_, "cannot rename the finished output into place: " + errno_text());
  committed_ = true;
}

}  // namespace weft::db
