#pragma once
// Colors of the function classes (summary/start_histogram.h) where the viewer
// shows classes instead of regions: the slider's stacked graph and the
// level-of-detail boxes of the physical timeline. Each is the middle shade of
// its class's hue in render/region_palette.cpp, so a zoomed-out block reads
// like the boxes it stands for.
#include "region_palette.h"
#include "summary/start_histogram.h"

namespace weft::app {

inline render::Rgba8 class_color(db::StartClass c) {
  switch (c) {
    case db::StartClass::Send: return render::rgba8(90, 150, 235);
    case db::StartClass::Receive: return render::rgba8(95, 195, 110);
    case db::StartClass::Wait: return render::rgba8(235, 120, 60);
    case db::StartClass::Collective: return render::rgba8(165, 100, 225);
    case db::StartClass::OtherMpi: return render::rgba8(120, 135, 160);
    case db::StartClass::Compute: return render::rgba8(150, 150, 150);
  }
  return render::rgba8(150, 150, 150);
}

}  // namespace weft::app
