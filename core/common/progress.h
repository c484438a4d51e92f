#pragma once
// Progress of a long computation (the structure analysis of `weft analyze`
// and `weft import`) for a progress bar. The work is a sequence of named
// stages, each ending at the share of the whole it usually reaches (shares
// of time measured at 16,384 processes x 200 iterations), with progress
// within a stage where a loop can tell it. The report is made only when a
// stage starts or the share done moves by a thousandth, so loops may call
// within() per batch. One thread (the one running the stages) calls it.
#include <cstdint>
#include <functional>
#include <string>

namespace weft {

class Progress {
 public:
  // stage: what is being done; done: the share of the whole, 0..1.
  using Report = std::function<void(const std::string& stage, double done)>;
  explicit Progress(Report report) : report_(std::move(report)) {}

  // The shares of the stages started next are of [from, until] of the whole:
  // a part of the work names its stages in its own terms (0..1).
  void scope(double from, double until);
  // Starts `stage`, which ends at share `until` (in the current scope) and
  // begins where the stage before ended.
  void stage(std::string name, double until);
  // The share `done` (0..1) of the current stage is done.
  void within(double done);

 private:
  void report(double whole);

  Report report_;
  std::string stage_;
  double scope_from_ = 0, scope_until_ = 1;
  double from_ = 0, until_ = 0;  // the current stage, as shares of the whole
  int reported_permille_ = -1;
};

// The same through a pointer that may be null (no progress wanted).
inline void progress_scope(Progress* progress, double from, double until) {
  if (progress) progress->scope(from, until);
}
inline void progress_stage(Progress* progress, std::string name, double until) {
  if (progress) progress->stage(std::move(name), until);
}
// `done` of `total` items of the current stage (a scan's records).
inline void progress_within(Progress* progress, std::int64_t done, double total) {
  if (progress) progress->within(static_cast<double>(done) / (total > 1 ? total : 1.0));
}

}  // namespace weft
