#pragma once
// Plays a DemoTour: which keyframe is showing at a moment of the tour, its
// view drawn that far through its span, and its caption over the bottom of
// the frame. The same frames go to the full-screen window and to a recording.
#include <memory>

#include "app/animated_view.h"
#include "app/demo_tour.h"

namespace weft::app {

class TourPlayer {
 public:
  // `query` and `info` must outlive the player; `frames_per_s` sets the
  // particles' data time step (and so their fade).
  TourPlayer(DemoTour tour, db::WindowQuery& query, const TraceInfo& info, double frames_per_s);
  ~TourPlayer();

  double total_seconds() const { return tour_.total_seconds(); }
  // Draws the tour `t_s` seconds in (held at its last frame past the end).
  void draw(double t_s, const render::PixelRect& area, int framebuffer_width, int framebuffer_height);

 private:
  DemoTour tour_;
  db::WindowQuery& query_;
  const TraceInfo& info_;
  double frames_per_s_;
  std::size_t current_ = static_cast<std::size_t>(-1);
  std::unique_ptr<AnimatedView> view_;
};

}  // namespace weft::app
