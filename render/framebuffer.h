#pragma once
// An offscreen render target for headless frames: a multisampled color
// renderbuffer that draws go into, resolved into a single-sample one that
// glReadPixels reads. Multisampling smooths the diagonal message lines; boxes
// are axis-aligned and come out exact either way.
#include <cstdint>
#include <vector>

#include "gl_api.h"

namespace weft::render {

// Reads the bound read framebuffer's [0, width) x [0, height) as RGBA8, top
// row first (GL counts rows from the bottom). Also used for window screenshots.
void read_pixels_top_down(int width, int height, std::vector<std::uint8_t>& pixels);

class Framebuffer {
 public:
  // Requires a current GL context. Throws weft::Error when the size is not
  // supported or the framebuffer is incomplete.
  Framebuffer(int width, int height, int samples = 4);
  ~Framebuffer();
  Framebuffer(const Framebuffer&) = delete;
  Framebuffer& operator=(const Framebuffer&) = delete;

  int width() const { return width_; }
  int height() const { return height_; }
  // Makes this the draw target and sets the viewport to cover it.
  void bind();
  // Resolves the samples and returns RGBA8 pixels, top row first.
  void read_rgba(std::vector<std::uint8_t>& pixels);

 private:
  int width_;
  int height_;
  int samples_;
  GLuint draw_fbo_ = 0;
  GLuint draw_color_ = 0;
  GLuint resolve_fbo_ = 0;
  GLuint resolve_color_ = 0;
};

}  // namespace weft::render
