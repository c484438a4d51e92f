#pragma once
// One headless frame after another: the EGL surfaceless context, an
// offscreen framebuffer and an ImGui frame, for `weft render`, `weft record`
// and `weft demo --record`. Views draw into it between begin() and
// finish()/read() exactly as into the window.
#include <cstdint>
#include <string>
#include <vector>

#include "app/headless_options.h"
#include "app/imgui_session.h"
#include "framebuffer.h"
#include "headless_context.h"
#include "view_transform.h"

namespace weft::app {

// Owns the headless GL context, framebuffer and ImGui frame of one image.
class HeadlessFrame {
 public:
  // `samples`: multisampling of the framebuffer; the timelines' diagonal
  // message lines want 4, the particle view's pixel-exact images need none
  // (and on llvmpipe every sample is paid for).
  // `scale`: framebuffer pixels per layout unit (app/ui_scale.h); the image
  // is `size` times `scale` pixels, laid out as `size`.
  explicit HeadlessFrame(Size size, int samples = 4, float scale = 1.0f);
  void begin();
  render::PixelRect area() const {
    return {0, 0, static_cast<float>(size_.width), static_cast<float>(size_.height)};
  }
  // Ends the frame and writes it to `out` as a PNG (and its path to stdout).
  void finish(const std::string& out);
  // Ends the frame and returns its RGBA pixels, top row first.
  void finish(std::vector<std::uint8_t>& pixels);
  Size size() const { return size_; }           // layout units
  Size pixel_size() const { return pixels_; }   // the image
  std::string renderer() const { return context_.renderer(); }  // GL_RENDERER

 private:
  Size size_;
  Size pixels_;
  render::HeadlessContext context_;  // first: everything below needs it current
  render::Framebuffer framebuffer_;
  ImGuiSession imgui_;
};

}  // namespace weft::app
