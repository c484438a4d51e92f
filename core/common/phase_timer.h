#pragma once
// Prints the time of each phase of a long pass to stderr when an environment
// variable is set (WEFT_IMPORT_TIMING=1, WEFT_ANALYZE_TIMING=1), so that the
// README's phase breakdowns can be reproduced without a profiler. Each line
// also shows the resident memory at its end (VmRSS) and the peak so far
// (VmHWM), to see which phase sets the peak and what the next one starts from.
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace weft {

class PhaseTimer {
 public:
  explicit PhaseTimer(const char* env_variable) : enabled_(std::getenv(env_variable) != nullptr) {}
  // Prints the time since the previous mark (or construction) under `phase`.
  void mark(const char* phase) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    std::fprintf(stderr, "%-26s %7.3f s  rss %6ld MB  peak %6ld MB\n", phase,
                 std::chrono::duration<double>(now - last_).count(), status_kb("VmRSS: %ld kB") / 1024,
                 status_kb("VmHWM: %ld kB") / 1024);
    last_ = now;
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

  bool enabled_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace weft
