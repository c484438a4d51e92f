#pragma once
// A view drawn frame after frame at a moving data time, for `weft record` and
// `weft demo`: the particle scatterplot played forward, or a physical or
// logical timeline over a fixed span with the time cursor and the messages
// in flight at that time.
#include <memory>
#include <string>

#include "app/timeline_data.h"
#include "view_transform.h"

namespace weft::app {

struct AnimatedViewSpec {
  std::string view = "particles";  // particles, physical or logical
  TimeNs from_ns = 0;              // the data time span the animation covers
  TimeNs to_ns = 0;
  double row0 = 0;                 // processes shown: rows (particles: segments) [row0, row1)
  double row1 = 0;                 // 0: all
  std::int64_t step0 = -1;         // logical view: global steps [step0, step1] swept instead of
  std::int64_t step1 = -1;         // the steps of [from_ns, to_ns] (-1: from the times)
  std::string color = "lateness";  // the logical view's color metric
  // particles: animation frames per second, fade and O_min (ParticleSettings)
  double frames_per_s = 30;
  double fade_s = 2;
  float omin = 0.3f;
  double step_ns = 0;              // particles: data time per frame (0: from the span and frame count)
};

class AnimatedView {
 public:
  virtual ~AnimatedView() = default;
  // Draws the frame `progress` (0: the span's start, 1: its end) of the way
  // through the span into `area` of the current ImGui frame (between
  // HeadlessFrame::begin and finish, or a window's frame).
  virtual void draw_at(double progress, const render::PixelRect& area, int framebuffer_width,
                       int framebuffer_height) = 0;
  // Live particles after the last frame (0 for the timelines).
  virtual std::size_t live_particles() const { return 0; }
};

// Makes the view of `spec` reading through `query` (which must outlive it).
// Throws weft::Error for an unknown view or a logical view of a run with no
// analysis.
std::unique_ptr<AnimatedView> make_animated_view(const AnimatedViewSpec& spec, db::WindowQuery& query,
                                                 const TraceInfo& info);

}  // namespace weft::app
