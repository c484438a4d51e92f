#pragma once
// Colors and sizes of the text and lines every view draws over its plot, so the
// panels of one window look alike.
#include <imgui.h>

#include "region_palette.h"

namespace weft::app {

inline ImU32 im_color(render::Rgba8 c) { return static_cast<ImU32>(c); }  // both are 0xAABBGGRR

inline const ImU32 kTextColor = IM_COL32(225, 225, 230, 255);
inline const ImU32 kDimTextColor = IM_COL32(160, 160, 170, 255);
inline const ImU32 kAxisColor = IM_COL32(150, 150, 160, 255);
inline const ImU32 kGridColor = IM_COL32(255, 255, 255, 28);
inline const ImU32 kCursorColor = IM_COL32(255, 255, 255, 210);
inline const ImU32 kSelectionColor = IM_COL32(120, 200, 255, 255);
constexpr float kMargin = 10.0f;
constexpr float kTickLength = 5.0f;

}  // namespace weft::app
