#pragma once
// What `weft view --frames N --stats` reports: frame times, the time to the
// first complete frame, window load times (the loader threads add theirs), and
// memory.
#include <chrono>
#include <mutex>
#include <vector>

namespace weft::app {

// Durations in ms added from any thread.
class LoadTimes {
 public:
  void add(double ms) {
    std::lock_guard lock(mutex_);
    ms_.push_back(ms);
  }
  std::vector<double> snapshot() {
    std::lock_guard lock(mutex_);
    return ms_;
  }

 private:
  std::mutex mutex_;
  std::vector<double> ms_;
};

// Wall time since `t0`, in ms.
inline double milliseconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The store's share of a window load: its wall time, and the loading thread's
// own CPU time over the same span. On two cores shared with llvmpipe's render
// threads the wall time includes waiting for a core; the CPU time is the
// store's cost alone.
struct QueryTime {
  double wall_ms = 0;
  double cpu_ms = 0;
};

// Started where a query starts; elapsed() is the QueryTime since then.
class QueryClock {
 public:
  QueryClock() : wall_(std::chrono::steady_clock::now()), cpu_ms_(thread_cpu_ms()) {}
  QueryTime elapsed() const { return {milliseconds_since(wall_), thread_cpu_ms() - cpu_ms_}; }

 private:
  static double thread_cpu_ms();
  std::chrono::steady_clock::time_point wall_;
  double cpu_ms_;
};

// The value at rank ceil(p * n) of `values` (0 when empty).
double percentile(std::vector<double> values, double p);
// Resident memory now and at its peak (VmHWM), in MiB.
double resident_mb();
double peak_resident_mb();

}  // namespace weft::app
