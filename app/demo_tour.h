#pragma once
// A demo tour (`weft demo --tour FILE.json`): keyframes shown one after the
// other, each a view over a span of the run with a caption, for live demos of
// large runs. The JSON:
//
//   { "run": "run.weft",               (optional; relative to the tour file)
//     "keyframes": [
//       { "view": "particles",         particles, physical or logical
//         "from": "0%", "to": "45%",   data time span (as `weft render --time`)
//         "steps": "30:60",            logical view: global steps instead of from/to
//         "procs": "0:15",             processes shown (rows, particle segments)
//         "color": "lateness",         logical view: color metric
//         "seconds": 6,                how long it plays: the play speed is span / seconds
//         "caption": "..." } ] }
#include <string>
#include <vector>

#include "app/animated_view.h"

namespace weft::app {

struct TourKeyframe {
  std::string view = "particles";
  std::string from;  // empty: start of the run
  std::string to;    // empty: end of the run
  std::string steps;
  std::string procs;
  std::string color = "lateness";
  double seconds = 5;
  std::string caption;
};

struct DemoTour {
  std::string run;  // resolved against the tour file's folder; may be empty
  std::vector<TourKeyframe> keyframes;
  double total_seconds() const;
};

// Reads and checks `path`. Throws weft::Error naming the file (and the
// keyframe) for unreadable JSON, unknown views or fields of the wrong type.
DemoTour read_demo_tour(const std::string& path);

// The built-in tour when none is given: the whole run as particles, then
// its middle on the physical timeline, then (when analyzed) the logical one.
DemoTour default_demo_tour(bool has_structure);

// The AnimatedView spec of keyframe `k` for a run ending at `trace_end_ns`
// with `process_count` processes, played at `frames_per_s`.
AnimatedViewSpec keyframe_spec(const TourKeyframe& k, TimeNs trace_end_ns, std::size_t process_count,
                               double frames_per_s);

}  // namespace weft::app
