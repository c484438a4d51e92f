#pragma once
// The physical timeline as a panel: where it sits in the framebuffer, what the
// user looks at (time span × row span), how input changes that, and the text
// drawn over the instanced boxes (title, process names, time axis, legend,
// tooltip) through ImGui draw lists. The same panel draws the interactive
// window and the headless `weft render` frame.
#include <cstdint>
#include <string>

#include "app/timeline_data.h"
#include "time_ticks.h"
#include "view_transform.h"

namespace weft::app {

class TimelinePanel {
 public:
  explicit TimelinePanel(const TraceInfo& info);

  // The whole trace on all processes.
  void fit();
  void set_viewport(const TimelineViewport& viewport);
  const TimelineViewport& viewport() const { return viewport_; }
  std::size_t row_count() const { return info_.processes.size(); }

  // Places the plot inside a framebuffer of the given size and returns the
  // transform for the current viewport. Needs a current ImGui frame (it
  // measures text).
  render::ViewTransform layout(int framebuffer_width, int framebuffer_height);

  // Window mode: wheel zooms time about the cursor (Ctrl+wheel zooms rows),
  // dragging pans, W/S zoom, A/D pan, Home fits.
  void handle_input(const render::ViewTransform& view);

  // Draws title, names, axis and legend for `view`. With `hover`, also finds the
  // box under the mouse in `data`, shows its tooltip and returns its index
  // (TimelineGeometry order) for highlighting; otherwise returns -1.
  std::int64_t draw_overlay(const render::ViewTransform& view, const LoadedWindow* data,
                            bool hover);

 private:
  void clamp_viewport();
  void measure_labels();
  void draw_title(const render::ViewTransform& view);
  void draw_process_names(const render::ViewTransform& view);
  void draw_time_axis(const render::ViewTransform& view);
  void draw_legend(const render::ViewTransform& view, const LoadedWindow* data);
  std::int64_t draw_tooltip(const render::ViewTransform& view, const LoadedWindow& data);

  const TraceInfo& info_;
  TimelineViewport viewport_;
  bool measured_ = false;
  float name_width_ = 0;     // widest process name, px
  float legend_width_ = 0;   // widest legend entry including its swatch, px
  render::PixelRect legend_rect_;
  render::TimeTicks ticks_;  // reused every frame
  std::string legend_text_;  // scratch for shortened legend names
};

}  // namespace weft::app
