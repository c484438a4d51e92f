#pragma once
// The interactive viewer: a GLFW window (OpenGL 3.3 core) showing the physical
// timeline, data loaded in the background as the view moves.
#include <string>

namespace weft::app {

struct ViewerOptions {
  std::string database;
  int width = 1600;
  int height = 1000;
  int frames = 0;           // > 0: render this many frames (after data arrived), then exit
  bool stats = false;       // print frame time percentiles and RSS at exit
  std::string screenshot;   // write the last frame to this PNG (for checks under xvfb)
  std::string processes;    // initial process filter, e.g. "0-1023:2" ("" for all)
  std::string chares;       // task runs: initial chare-row filter of the logical view
  bool tour = false;        // move the views along view_tour.h's path over the `frames` frames
  bool particles = false;   // open with the particle panel shown
  bool play = false;        // with `particles`: start playing the animation
  bool profile = false;     // a Charm++ run: open with the usage profile shown
  bool vps = false;         // an AMPI run: open with the virtual-rank lanes shown
  float ui_scale = 0;       // framebuffer pixels per layout unit; 0: the window's content scale (ui_scale.h)
};

// Runs until the window closes (or `frames` frames are drawn). Throws
// weft::Error when there is no display or no window can be opened.
void run_viewer(const ViewerOptions& options);

}  // namespace weft::app
