#pragma once
// Undo and redo of view changes (Ctrl+Z, Ctrl+Shift+Z), as in Perfetto and
// Tracy: every settled navigation (a wheel zoom once the wheel stops, the end
// of a drag, a key, a selection on the overview) is one step back. A state is
// both timelines' viewports.
#include <cstddef>
#include <optional>
#include <vector>

#include "app/timeline_data.h"

namespace weft::app {

struct ViewState {
  TimelineViewport physical;
  TimelineViewport logical;
  bool operator==(const ViewState& o) const;
};

class ViewHistory {
 public:
  // The state when the view opened.
  explicit ViewHistory(const ViewState& initial);

  // Call every frame with the current state, whether input is under way (a
  // button held, the wheel turned this frame) and the time in seconds. A state
  // that differs from the last recorded one is recorded once it has stayed
  // unchanged with no input for `settle_s`; recording drops the redo states.
  void observe(const ViewState& now, bool input_active, double time_s, double settle_s = 0.35);

  // The state to go back (or forward) to, or none at the end of the history.
  // Navigating records nothing: the state returned becomes the current one.
  std::optional<ViewState> undo(const ViewState& now);
  std::optional<ViewState> redo();

  std::size_t size() const { return states_.size(); }
  std::size_t position() const { return current_; }

 private:
  std::vector<ViewState> states_;
  std::size_t current_ = 0;  // index of the state on screen
  std::optional<ViewState> pending_;
  double pending_since_ = 0;
  static constexpr std::size_t kMaxStates = 256;
};

}  // namespace weft::app
