#pragma once
// One timeline as a panel: where it sits in the framebuffer, what the user
// looks at (an x span × a row span), how input changes that, and the frame
// drawn over the instanced boxes through ImGui draw lists: title, process
// names and the x axis. The x axis is either time (ns since trace start, the
// physical timeline) or global logical steps (the logical timeline). What the
// boxes mean (legend, tooltip) is drawn by the view's own overlay
// (physical_overlay.h, logical_overlay.h) in legend_rect().
//
// The same panel draws the interactive window and the headless `weft render`.
#include <cstdint>
#include <string>
#include <vector>

#include "app/timeline_data.h"
#include "time_ticks.h"
#include "view_transform.h"

namespace weft::app {

enum class TimelineAxis { Time, Steps };

class TimelinePanel {
 public:
  // `x_end`: the end of the x axis (trace end in ns, or the number of steps).
  TimelinePanel(const TraceInfo& info, TimelineAxis axis, double x_end);

  void set_title(std::string title) { title_ = std::move(title); }
  // Row labels by process index instead of the process names (e.g. a PE's
  // busy % after its name, or "VP 7" rows); empty: the names.
  void set_row_labels(std::vector<std::string> labels) {
    labels_ = std::move(labels);
    measured_ = false;
  }
  TimelineAxis axis() const { return axis_; }
  double x_end() const { return x_end_; }

  // All of x on all processes.
  void fit();
  void set_viewport(const TimelineViewport& viewport);
  const TimelineViewport& viewport() const { return viewport_; }
  // Rows show the processes `process_of_row` lists (null: all, in order). The
  // vector must outlive its use here; set it again when the filter changes.
  void set_rows(const std::vector<ProcessIndex>* process_of_row) {
    rows_ = process_of_row;
    clamp_viewport();
  }
  std::size_t row_count() const {
    return rows_ ? rows_->size() : labels_.empty() ? info_.processes.size() : labels_.size();
  }
  ProcessIndex process_of_row(std::int64_t row) const {
    return rows_ ? (*rows_)[static_cast<std::size_t>(row)] : static_cast<ProcessIndex>(row);
  }

  // Places the plot inside `area` of a framebuffer of the given size and
  // returns the transform for the current viewport. `legend_px` is the width
  // kept right of the plot for the view's legend. Needs a current ImGui frame.
  render::ViewTransform layout(const render::PixelRect& area, int framebuffer_width,
                               int framebuffer_height, float legend_px);
  const render::PixelRect& legend_rect() const { return legend_rect_; }

  // Window mode: wheel zooms x about the cursor (Shift or Ctrl+wheel zooms
  // rows), dragging pans, W/S zoom, A/D pan, Home fits. Returns whether the
  // viewport changed.
  bool handle_input(const render::ViewTransform& view);

  // Title, process names, x axis with its grid.
  void draw_frame(const render::ViewTransform& view);

 private:
  void clamp_viewport();
  void measure_labels();
  void draw_title(const render::ViewTransform& view);
  void draw_process_names(const render::ViewTransform& view);
  void draw_x_axis(const render::ViewTransform& view);
  const std::string& row_label_of(ProcessIndex p) const {
    return labels_.empty() ? info_.processes.name[static_cast<std::size_t>(p)] : labels_[static_cast<std::size_t>(p)];
  }

  const TraceInfo& info_;
  const std::vector<ProcessIndex>* rows_ = nullptr;
  TimelineAxis axis_;
  double x_end_;
  std::string title_;
  std::vector<std::string> labels_;
  TimelineViewport viewport_;
  bool measured_ = false;
  float name_width_ = 0;  // widest process name, px
  render::PixelRect area_;
  render::PixelRect legend_rect_;
  render::TimeTicks ticks_;  // reused every frame
};

// Text helpers shared by the overlays.
std::string thousands(std::int64_t n);
// `text`, or its longest prefix that fits in `width` px followed by "...".
const std::string& fit_text(const std::string& text, float width, std::string& scratch);

}  // namespace weft::app
