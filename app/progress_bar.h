#pragma once
// A one-line progress bar on stderr for long commands. It stays invisible for
// the first second (short commands print nothing) and when stderr is not a
// terminal (logs and tests see no control characters), and redraws at most
// ten times a second however often update() is called.
#include <chrono>
#include <string>

namespace weft::app {

class ProgressBar {
 public:
  // `enabled` false (e.g. --quiet) turns every call into a no-op.
  ProgressBar(std::string label, bool enabled);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // fraction in [0, 1]; detail is printed after the percentage.
  void update(double fraction, const std::string& detail);
  // Clears the line if anything was drawn.
  void finish();

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace weft::app
