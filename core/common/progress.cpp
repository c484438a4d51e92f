#include "common/progress.h"

#include <algorithm>
#include <cmath>

namespace weft {

void Progress::scope(double from, double until) {
  scope_from_ = std::clamp(from, 0.0, 1.0);
  scope_until_ = std::clamp(until, scope_from_, 1.0);
}

void Progress::stage(std::string name, double until) {
  from_ = std::max(from_, until_);  // where the stage before ended
  until_ = std::max(from_, scope_from_ + std::clamp(until, 0.0, 1.0) * (scope_until_ - scope_from_));
  stage_ = std::move(name);
  reported_permille_ = -1;  // a new stage is always reported
  report(from_);
}

void Progress::within(double done) { report(from_ + std::clamp(done, 0.0, 1.0) * (until_ - from_)); }

void Progress::report(double whole) {
  // Rounded down: the last report of a stage that reaches its end is its end.
  const auto permille = static_cast<int>(std::floor(whole * 1000));
  if (permille == reported_permille_ || !report_) return;
  reported_permille_ = permille;
  report_(stage_, whole);
}

}  // namespace weft
