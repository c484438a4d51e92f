#pragma once
// Prints the time of each phase of a long pass to stderr when an environment
// variable is set (WEFT_IMPORT_TIMING=1, WEFT_ANALYZE_TIMING=1), so that the
// README's phase breakdowns can be reproduced without a profiler. Each line
// also shows the resident memory at its end (VmRSS) and the peak so far
// (VmHWM), to see which phase sets the peak and what the next one starts from,
// the CPU time of the calling thread (a phase whose CPU time is well under
// its wall time waited: for a lock, the disk, or a CPU) and of the whole
// process ("all"; under twice the wall time with two threads: a core was
// idle, or the phase ran on one thread). The time the
// phase ended, counted from the first timer made ("at"), lines up the phases
// of the threads that run side by side.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace weft {

class PhaseTimer {
 public:
  explicit PhaseTimer(const char* env_variable) : enabled_(std::getenv(env_variable) != nullptr) {
    if (enabled_) first_timer_made();
  }
  // Prints the time since the previous mark (or construction) under `phase`.
  void mark(const char* phase) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    const double cpu = cpu_seconds(CLOCK_THREAD_CPUTIME_ID), all = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
    std::fprintf(stderr, "%-26s %7.3f s  rss %6ld MB  peak %6ld MB  cpu %6.3f s  all %6.3f s  at %7.3f s\n", phase,
                 std::chrono::duration<double>(now - last_).count(), status_kb("VmRSS: %ld kB") / 1024,
                 status_kb("VmHWM: %ld kB") / 1024, cpu - last_cpu_, all - last_all_cpu_,
                 std::chrono::duration<double>(now - first_timer_made()).count());
    last_ = now;
    last_cpu_ = cpu;
    last_all_cpu_ = all;
  }

 private:
  // A "Name: %ld kB" line of /proc/self/status; 0 when absent.
  static long status_kb(const char* format) {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    long kb = 0;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, format, &kb) == 1) break;
    std::fclose(f);
    return kb;
  }

  static std::chrono::steady_clock::time_point first_timer_made() {
    static const std::chrono::steady_clock::time_point first = std::chrono::steady_clock::now();
    return first;
  }

  static double cpu_seconds(clockid_t clock) {
    timespec t{};
    clock_gettime(clock, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  }

  bool enabled_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  double last_cpu_ = enabled_ ? cpu_seconds(CLOCK_THREAD_CPUTIME_ID) : 0;
  double last_all_cpu_ = enabled_ ? cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) : 0;
};

}  // namespace weft
