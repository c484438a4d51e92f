#pragma once
// The timeline slider at the bottom of the window (particle-animation.txt,
// "timeline"): a stacked graph of event starts per time bin by function class
// over the whole run, the span the physical timeline shows, and the current
// time as a cursor. Dragging on it scrubs the current time; the timelines draw
// the same moment as a cursor (time in the physical view, the step being
// worked on then in the logical one: one slider, two clocks).
#include <optional>

#include "summary/start_histogram.h"
#include "view_transform.h"

namespace weft::app {

class TimelineSlider {
 public:
  // `histogram` may be empty (a run imported with --no-analyze): the slider
  // still scrubs, with a note instead of the graph.
  TimelineSlider(double trace_end_ns, std::optional<db::StartHistogram> histogram);

  double current_ns() const { return current_ns_; }
  void set_current_ns(double t_ns);
  // A still image of the whole run (`weft render --view overview`) has no "now".
  void hide_cursor() { cursor_visible_ = false; }

  // Draws into `area`, marking [view_t0, view_t1] (the physical view's span).
  // With `interactive`, a press or drag inside sets the current time. Returns
  // whether the current time changed.
  bool draw(const render::PixelRect& area, double view_t0_ns, double view_t1_ns, bool interactive);

 private:
  void draw_graph(const render::PixelRect& plot);
  struct LegendLayout {
    int rows = 1, columns = 1;
    float swatch = 0, column_width = 0;
  };
  static LegendLayout legend_layout(const render::PixelRect& area);
  void draw_legend(const render::PixelRect& area, const LegendLayout& layout, float x);

  double trace_end_ns_;
  std::optional<db::StartHistogram> histogram_;
  double current_ns_ = 0;
  bool cursor_visible_ = true;
};

}  // namespace weft::app
