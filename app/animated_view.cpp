#include "app/animated_view.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "app/logical_data.h"
#include "app/logical_overlay.h"
#include "app/physical_overlay.h"
#include "app/message_flight.h"
#include "app/particle_view.h"
#include "app/timeline_frame.h"
#include "app/timeline_panel.h"
#include "app/view_filter.h"
#include "common/error.h"
#include "particle_renderer.h"
#include "structure/logical_window.h"
#include "summary/activity_lod.h"
#include "timeline_raster.h"
#include "timeline_renderer.h"

namespace weft::app {

namespace {

TimeNs time_at(const AnimatedViewSpec& spec, double progress) {
  const double span = static_cast<double>(spec.to_ns - spec.from_ns);
  return spec.from_ns + static_cast<TimeNs>(std::llround(span * std::clamp(progress, 0.0, 1.0)));
}

class AnimatedParticles final : public AnimatedView {
 public:
  AnimatedParticles(const AnimatedViewSpec& spec, db::WindowQuery& query, const TraceInfo& info)
      : spec_(spec), view_(query, info, render::particle_path_for_context()) {
    ParticleSettings& s = view_.settings();
    if (spec.step_ns > 0) s.step_ns = spec.step_ns;
    s.frames_per_s = spec.frames_per_s;
    s.fade_s = spec.fade_s;
    s.omin = spec.omin;
    if (spec.row1 > spec.row0)
      view_.set_processes(static_cast<ProcessIndex>(spec.row0), static_cast<ProcessIndex>(spec.row1) - 1);
  }
  void draw_at(double progress, const render::PixelRect& area, int fb_w, int fb_h) override {
    const TimeNs t_ns = time_at(spec_, progress);
    view_.set_area(area);
    // The first frame brings the history up to the span's start as if played.
    if (first_) view_.replay_to(t_ns);
    else view_.play_to(t_ns);
    first_ = false;
    view_.draw(fb_w, fb_h, false);
  }
  std::size_t live_particles() const override { return view_.live_particles(); }

 private:
  AnimatedViewSpec spec_;
  ParticleView view_;
  bool first_ = true;
};

void set_spec_rows(const AnimatedViewSpec& spec, const TraceInfo& info, TimelineViewport& v) {
  const auto rows = static_cast<double>(info.processes.size());
  v.row0 = std::clamp(spec.row0, 0.0, rows);
  v.row1 = spec.row1 > spec.row0 ? std::min(spec.row1, rows) : rows;
  if (v.row1 <= v.row0) v.row0 = 0, v.row1 = rows;
}

class AnimatedPhysical final : public AnimatedView {
 public:
  AnimatedPhysical(const AnimatedViewSpec& spec, db::WindowQuery& query, const TraceInfo& info)
      : spec_(spec),
        query_(query),
        info_(info),
        panel_(info, TimelineAxis::Time, static_cast<double>(info.meta.trace_end_ns)),
        filter_(make_view_filter(info, "", {}, "")) {
    panel_.set_title(physical_title(info));
    TimelineViewport v;
    v.t0_ns = static_cast<double>(spec.from_ns);
    v.t1_ns = static_cast<double>(std::max(spec.to_ns, spec.from_ns + 1));
    set_spec_rows(spec, info, v);
    panel_.set_viewport(v);
    if (db::has_activity_lod(query.database())) lod_.emplace(query.database());
  }
  void draw_at(double progress, const render::PixelRect& area, int fb_w, int fb_h) override {
    const TimeNs t_ns = time_at(spec_, progress);
    // The span is fixed: its window is loaded once, at the first frame's zoom.
    if (!data_) {
      const render::ViewTransform view = panel_.layout(area, fb_w, fb_h, physical_legend_width(info_));
      data_ = std::make_unique<LoadedWindow>();
      const db::Window window = window_for_viewport(panel_.viewport(), 0.0, info_.processes.size());
      const auto [x_phase, y_phase] = pixel_phase(view, static_cast<double>(window.t0), static_cast<double>(window.p0));
      PhysicalRequest request{window, view.px_per_ns(), view.px_per_row(), filter_,
                              render::raster_dense_windows_for_context(), x_phase, y_phase};
      load_window(query_, lod_ ? &*lod_ : nullptr, info_, request, *data_);
      renderer_.upload(data_->geometry);
    }
    DrawnView drawn = draw_physical_timeline(panel_, renderer_, info_, data_.get(), area, fb_w, fb_h, false);
    draw_cursor(drawn.view, static_cast<double>(t_ns));
    // No logical window here to say how late each receive was: dots without glow.
    draw_physical_flights(drawn.view, data_->messages, *filter_, static_cast<double>(t_ns), nullptr, 0.0);
  }

 private:
  AnimatedViewSpec spec_;
  db::WindowQuery& query_;
  const TraceInfo& info_;
  TimelinePanel panel_;
  std::shared_ptr<const ViewFilter> filter_;
  std::optional<db::ActivityLod> lod_;
  render::TimelineRenderer renderer_;
  std::unique_ptr<LoadedWindow> data_;
};

class AnimatedLogical final : public AnimatedView {
 public:
  AnimatedLogical(const AnimatedViewSpec& spec, db::WindowQuery& query, const TraceInfo& info)
      : info_(info),
        steps_(query.database()),
        facts_(steps_.facts()),
        spans_(db::read_partition_spans(query.database())),
        color_(parse_logical_color(spec.color)),
        panel_(info_, TimelineAxis::Steps, static_cast<double>(facts_.global_steps)),
        filter_(make_view_filter(info_, "", {}, "")) {
    panel_.set_title(logical_title(info, facts_, color_));
    TimelineViewport v;
    if (spec.step0 >= 0 && spec.step1 >= spec.step0) {
      if (spec.step1 >= facts_.global_steps)
        throw Error("steps " + std::to_string(spec.step0) + ":" + std::to_string(spec.step1) +
                    " are not within the run's 0:" + std::to_string(facts_.global_steps - 1));
      sweep0_ = static_cast<double>(spec.step0);
      sweep1_ = static_cast<double>(spec.step1) + 1;
    } else {
      sweep0_ = db::step_at_time(spans_, static_cast<double>(spec.from_ns));
      sweep1_ = db::step_at_time(spans_, static_cast<double>(spec.to_ns));
    }
    v.t0_ns = std::floor(sweep0_);
    v.t1_ns = std::max(v.t0_ns + 1, std::ceil(sweep1_));
    set_spec_rows(spec, info, v);
    panel_.set_viewport(v);
    if (db::has_step_lod(query.database())) lod_.emplace(query.database());
  }
  void draw_at(double progress, const render::PixelRect& area, int fb_w, int fb_h) override {
    if (!data_) {
      const render::ViewTransform view = panel_.layout(area, fb_w, fb_h, logical_legend_width(info_, color_));
      data_ = std::make_unique<LoadedLogicalWindow>();
      const db::StepWindow window =
          step_window_for_viewport(panel_.viewport(), 0.0, info_.processes.size(), facts_.global_steps);
      const auto [x_phase, y_phase] = pixel_phase(view, static_cast<double>(window.s0), static_cast<double>(window.p0));
      load_logical_window(steps_, lod_ ? &*lod_ : nullptr, info_, facts_, color_, *filter_, window,
                          {view.px_per_ns(), view.px_per_row(), render::raster_dense_windows_for_context(), x_phase,
                           y_phase},
                          *data_);
      renderer_.upload(data_->geometry);
    }
    DrawnView drawn =
        draw_logical_timeline(panel_, renderer_, info_, facts_, color_, data_.get(), area, fb_w, fb_h, false);
    const double step = sweep0_ + (sweep1_ - sweep0_) * std::clamp(progress, 0.0, 1.0);
    draw_cursor(drawn.view, step);
    draw_logical_flights(drawn.view, data_->messages, data_->recv_lateness, *filter_, step,
                         static_cast<double>(facts_.max_lateness_ns));
  }

 private:
  const TraceInfo info_;  // the logical view's own (logical_trace_info): rows may be chares
  db::LogicalWindowQuery steps_;
  db::StructureFacts facts_;
  db::PartitionSpans spans_;
  LogicalColor color_;
  double sweep0_ = 0;  // the cursor's steps at progress 0 and 1
  double sweep1_ = 1;
  TimelinePanel panel_;
  std::shared_ptr<const ViewFilter> filter_;
  std::optional<db::StepLod> lod_;
  render::TimelineRenderer renderer_;
  std::unique_ptr<LoadedLogicalWindow> data_;
};

}  // namespace

std::unique_ptr<AnimatedView> make_animated_view(const AnimatedViewSpec& spec, db::WindowQuery& query,
                                                 const TraceInfo& info) {
  if (spec.view == "particles") return std::make_unique<AnimatedParticles>(spec, query, info);
  if (spec.view == "physical") return std::make_unique<AnimatedPhysical>(spec, query, info);
  if (spec.view == "logical") {
    if (!db::has_logical_structure(query.database()))
      throw Error(query.path() + ": no logical structure for the logical view (run `weft analyze` first)");
    return std::make_unique<AnimatedLogical>(spec, query, logical_trace_info(query.database(), info));
  }
  throw Error("--view: unknown view '" + spec.view + "' (particles, logical or physical)");
}

}  // namespace weft::app
