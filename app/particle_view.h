#pragma once
// The particle scatterplot of particle-animation.txt §3.2 as one panel: the
// animation state (live particles, history, data time), the controls' values,
// and its drawing (the render/ pixels, then grid, labels and legend through
// ImGui). Used by `weft view` (Particles panel), `weft render --view
// particles` and `weft record`.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/timeline_data.h"
#include "particle_feed.h"
#include "particle_field.h"
#include "particle_renderer.h"
#include "particle_scale.h"

namespace weft::app {

// The animation's timing (§3.2.2): each frame advances the data time by
// `step_ns` (the data time step); frames follow at `frames_per_s` (the
// animation interval is its inverse); a particle fades for `fade_s` seconds of
// animation after its event ends; the history shows at least `omin` opacity.
struct ParticleSettings {
  double step_ns = 1;
  double frames_per_s = 30;
  double fade_s = 2;
  float omin = 0.3f;
};

// The default data time step: the whole run in 20 s of animation at 30 frames/s.
double default_particle_step_ns(TimeNs trace_end_ns);

class ParticleView {
 public:
  // `query` must outlive the view and be used on this thread only.
  ParticleView(db::WindowQuery& query, const TraceInfo& info, render::ParticlePath path);
  ~ParticleView();

  ParticleSettings& settings() { return settings_; }
  render::ParticleScale scale() const;
  TimeNs now() const { return now_; }
  std::size_t live_particles() const { return field_.size(); }
  std::size_t running_particles() const { return field_.running(now_); }
  render::ParticlePath path() const { return renderer_->path(); }
  const render::ParticleHistory& history() const { return history_; }

  // Lays the panel out in `area`; a plot of a new size starts a new history.
  void set_area(const render::PixelRect& area);
  // One frame of playing: data time + step.
  void play_frame();
  // Plays forward to `t` (history accumulates), or jumps when `t` is earlier.
  void play_to(TimeNs t);
  // Jumps to `t` with no history for the skipped time (the slider, §3.2.2).
  void jump_to(TimeNs t);
  // From the start up to `t` as if played: empty history, then play_to(t).
  void replay_to(TimeNs t);
  void clear_history() { history_.clear(); }
  // Shows only processes [first, last] (clamped to the run), one segment
  // each. A new range starts a new history and jumps to now() (the particles
  // alive then, as the slider does); all processes by default.
  void set_processes(ProcessIndex first, ProcessIndex last);
  ProcessIndex first_process() const { return first_process_; }
  std::size_t shown_processes() const { return shown_processes_; }
  // The particle colors by region position (the trace's, then the user's picks).
  const std::vector<render::Rgba8>& colors() const { return colors_; }
  // Recolors region position `region` (live particles, legend, later particles).
  void set_region_color(std::int32_t region, render::Rgba8 color);
  // Region positions shown as particles, in legend order.
  const std::vector<std::int32_t>& legend_regions() const { return legend_; }

  // Draws into the bound framebuffer (set_area first). With `hover`, shows the
  // tooltip of the particle under the mouse.
  void draw(int framebuffer_width, int framebuffer_height, bool hover);

 private:
  void draw_axes() const;
  void draw_segments() const;
  void draw_legend() const;
  void draw_tooltip() const;

  db::WindowQuery& query_;
  const TraceInfo& info_;
  std::unique_ptr<render::ParticleRenderer> renderer_;
  render::ParticleFeed feed_;
  render::ParticleField field_;
  render::ParticleHistory history_;
  std::vector<std::uint8_t> mask_;  // regions shown as particles
  std::vector<std::int32_t> legend_;  // those regions in legend order
  std::vector<render::Rgba8> colors_;
  ParticleSettings settings_;
  render::PixelRect area_;
  render::ParticleLayout layout_;
  double dmax_ns_ = 2;
  ProcessIndex first_process_ = 0;
  std::size_t shown_processes_ = 1;
  TimeNs now_ = 0;
};

}  // namespace weft::app
