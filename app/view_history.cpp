#include "app/view_history.h"

namespace weft::app {

namespace {

bool same(const TimelineViewport& a, const TimelineViewport& b) {
  return a.t0_ns == b.t0_ns && a.t1_ns == b.t1_ns && a.row0 == b.row0 && a.row1 == b.row1;
}

}  // namespace

bool ViewState::operator==(const ViewState& o) const {
  return same(physical, o.physical) && same(logical, o.logical);
}

ViewHistory::ViewHistory(const ViewState& initial) : states_{initial} {}

void ViewHistory::observe(const ViewState& now, bool input_active, double time_s, double settle_s) {
  if (now == states_[current_]) {
    pending_.reset();
    return;
  }
  if (input_active || !pending_ || !(*pending_ == now)) {
    pending_ = now;
    pending_since_ = time_s;
    return;
  }
  if (time_s - pending_since_ < settle_s) return;
  states_.resize(current_ + 1);  // a new branch: the redo states are gone
  states_.push_back(now);
  if (states_.size() > kMaxStates) states_.erase(states_.begin());
  current_ = states_.size() - 1;
  pending_.reset();
}

std::optional<ViewState> ViewHistory::undo(const ViewState& now) {
  // A change not yet recorded is undone first: back to the state it left.
  if (!(now == states_[current_])) {
    pending_.reset();
    return states_[current_];
  }
  if (current_ == 0) return std::nullopt;
  --current_;
  return states_[current_];
}

std::optional<ViewState> ViewHistory::redo() {
  if (current_ + 1 >= states_.size()) return std::nullopt;
  ++current_;
  pending_.reset();
  return states_[current_];
}

}  // namespace weft::app
