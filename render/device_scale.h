#pragma once
// Framebuffer pixels per layout unit (app/ui_scale.h). Renderers are given
// sizes in layout units, the units of ImGui and of every plot rectangle, while
// the GL viewport covers the whole framebuffer in pixels; their ratio is the
// scale, read here so that no renderer needs it passed in. Only what works in
// real pixels uses it: scissor boxes and gl_FragCoord.
#include "gl_api.h"

namespace weft::render {

inline float device_scale(int layout_width) {
  GLint viewport[4] = {0, 0, 0, 0};
  glGetIntegerv(GL_VIEWPORT, viewport);
  return layout_width > 0 && viewport[2] > 0 ? static_cast<float>(viewport[2]) / static_cast<float>(layout_width)
                                             : 1.0f;
}

}  // namespace weft::render
