#pragma once
// The "Particles" control window of `weft view` (particle-animation.txt
// §3.2.2, "timing control variables"): play/pause, the data time step, the
// animation interval (frames per second), the fade time, O_min of the history
// tone mapping, "clear history" and the range of processes shown. The shared timeline slider moves the time.
#include "app/particle_view.h"
#include "view_transform.h"

namespace weft::app {

struct ParticleControls {
  bool playing = false;
  double last_frame_s = -1;  // wall time of the last animation frame
  bool dragging_processes = false;  // the process range being edited, not yet applied
  int process_lo = 0;
  int process_hi = 0;
};

// Width of the controls' column in `weft view`.
constexpr float kParticleControlsWidth = 300.0f;

// Draws the control window filling the top of `area`.
void draw_particle_controls(ParticleControls& controls, ParticleView& view, const TraceInfo& info,
                            const render::PixelRect& area);

// Plays one animation frame when playing and the animation interval has
// passed since the last one at wall time `now_s`; stops at `end_ns`.
// Returns whether the data time moved.
bool step_particle_animation(ParticleControls& controls, ParticleView& view, double now_s, TimeNs end_ns);

}  // namespace weft::app
