#pragma once
// Runs a program as a child process and reports how it ended: exit status or
// the signal that killed it, its stdout and stderr, its peak resident memory
// and whether it outlived a (generous) hang guard. The reliability tests run
// the weft CLI this way so that a crash shows up as a signal instead of taking
// the test binary down with it.
//
// The child gets its own process group, so a hang guard or a test that kills
// it reaches every process it started.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace weft::test {

// True when the tests (and so the weft binary beside them) are built with
// AddressSanitizer: its shadow memory needs a huge address space, so no
// RLIMIT_AS then, and the ASAN_OPTIONS of the environment bound the memory.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif

struct ProcessLimits {
  // Hang guard: the child is killed (and the run reported as timed out) after this.
  double timeout_seconds = 120;
  // Address-space limit in bytes (0: none); ignored in sanitizer builds.
  std::uint64_t address_space = std::uint64_t{3} << 30;
  // Extra environment variables, "NAME=value".
  std::vector<std::string> env;
  // Where the child's stdin comes from (default /dev/null).
  std::string stdin_path = "/dev/null";
  // Where the child's stdout goes instead of the pipe (empty: captured).
  std::string stdout_path;
};

struct ProcessResult {
  bool exited = false;     // ended by exit(); else killed by `signal`
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;  // killed by the hang guard
  long max_rss_kb = 0;
  std::string out;
  std::string err;

  std::string describe() const {
    std::string what = timed_out ? "timed out (hang guard)"
                       : exited ? "exit " + std::to_string(exit_code)
                                : "killed by signal " + std::to_string(signal) + " (" +
                                      strsignal(signal) + ")";
    return what + ", peak RSS " + std::to_string(max_rss_kb / 1024) + " MiB, stderr: " + err;
  }
};

// A started child, for tests that signal it themselves.
struct ChildProcess {
  pid_t pid = -1;
  int out_fd = -1;
  int err_fd = -1;
};

// Limits for a child that initializes EGL/Mesa (weft render): Mesa's driver,
// unloaded at exit, leaves allocations LeakSanitizer cannot attribute (frames
// "<unknown module>"); leak checking is off for such children only.
inline ProcessLimits egl_child_limits() {
  ProcessLimits limits;
  const char* asan = std::getenv("ASAN_OPTIONS");
  limits.env.push_back(std::string("ASAN_OPTIONS=") + (asan ? asan : "") + ":detect_leaks=0");
  return limits;
}

inline ChildProcess start_process(const std::vector<std::string>& argv,
                                  const ProcessLimits& limits = {}) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) return {};
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int in = open(limits.stdin_path.c_str(), O_RDONLY);
    if (in >= 0) dup2(in, 0);
    int out = limits.stdout_path.empty() ? -1 : open(limits.stdout_path.c_str(), O_WRONLY);
    dup2(out >= 0 ? out : out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    if (!kSanitizedBuild && limits.address_space) {
      rlimit rl{limits.address_space, limits.address_space};
      setrlimit(RLIMIT_AS, &rl);
    }
    for (const std::string& e : limits.env) putenv(const_cast<char*>(e.c_str()));
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid > 0) setpgid(pid, pid);  // both sides set it: no race with an early kill
  return {pid, out_pipe[0], err_pipe[0]};
}

// Reads the child's output until it closes both pipes (or the hang guard
// fires), then reaps it.
inline ProcessResult finish_process(ChildProcess child, const ProcessLimits& limits = {}) {
  ProcessResult r;
  if (child.pid <= 0) {
    r.err = "cannot start the process";
    return r;
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long>(limits.timeout_seconds * 1000));
  pollfd fds[2] = {{child.out_fd, POLLIN, 0}, {child.err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  char buf[4096];
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      kill(-child.pid, SIGKILL);
      break;
    }
    int n = poll(fds, 2, static_cast<int>(std::min<long>(left.count(), 1000)));
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        if (sinks[i]->size() < (std::size_t{1} << 20)) sinks[i]->append(buf, static_cast<std::size_t>(got));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  rusage usage{};
  while (wait4(child.pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  r.max_rss_kb = usage.ru_maxrss;
  r.exited = WIFEXITED(status);
  r.exit_code = r.exited ? WEXITSTATUS(status) : -1;
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return r;
}

inline ProcessResult run_process(const std::vector<std::string>& argv,
                                 const ProcessLimits& limits = {}) {
  return finish_process(start_process(argv, limits), limits);
}

}  // namespace weft::test
