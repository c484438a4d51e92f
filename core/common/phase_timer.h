#pragma once
// Prints the time of each phase of a long pass to stderr when an environment
// variable is set (WEFT_IMPORT_TIMING=1, WEFT_ANALYZE_TIMING=1), so that the
// README's phase breakdowns can be reproduced without a profiler.
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
    std::fprintf(stderr, "%-26s %7.3f s\n", phase, std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace weft
