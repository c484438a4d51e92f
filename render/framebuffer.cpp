#include "framebuffer.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "common/error.h"

namespace weft::render {

namespace {

GLuint make_color_target(int width, int height, int samples, GLuint& renderbuffer) {
  GLuint fbo = 0;
  glGenFramebuffers(1, &fbo);
  glGenRenderbuffers(1, &renderbuffer);
  glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer);
  if (samples > 1)
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, width, height);
  else
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, renderbuffer);
  GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    glDeleteFramebuffers(1, &fbo);
    glDeleteRenderbuffers(1, &renderbuffer);
    throw Error("offscreen framebuffer is incomplete (samples " + std::to_string(samples) + ")");
  }
  return fbo;
}

}  // namespace

void read_pixels_top_down(int width, int height, std::vector<std::uint8_t>& pixels) {
  const auto row_bytes = static_cast<std::size_t>(width) * 4;
  pixels.resize(row_bytes * static_cast<std::size_t>(height));
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  std::vector<std::uint8_t> row(row_bytes);
  for (int y = 0; y < height / 2; ++y) {
    std::uint8_t* top = pixels.data() + static_cast<std::size_t>(y) * row_bytes;
    std::uint8_t* bottom = pixels.data() + static_cast<std::size_t>(height - 1 - y) * row_bytes;
    std::memcpy(row.data(), top, row_bytes);
    std::memcpy(top, bottom, row_bytes);
    std::memcpy(bottom, row.data(), row_bytes);
  }
}

Framebuffer::Framebuffer(int width, int height, int samples)
    : width_(width), height_(height), samples_(samples) {
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
  if (width < 1 || height < 1 || width > max_size || height > max_size)
    throw Error("image size " + std::to_string(width) + "x" + std::to_string(height) +
                " is not supported (1.." + std::to_string(max_size) + " per side)");
  GLint max_samples = 0;
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  samples_ = std::clamp(samples_, 1, std::max(1, static_cast<int>(max_samples)));

  resolve_fbo_ = make_color_target(width, height, 1, resolve_color_);
  if (samples_ > 1) {
    try {
      draw_fbo_ = make_color_target(width, height, samples_, draw_color_);
    } catch (const Error&) {
      samples_ = 1;  // draw straight into the single-sample target instead
    }
  }
}

Framebuffer::~Framebuffer() {
  glDeleteFramebuffers(1, &draw_fbo_);
  glDeleteRenderbuffers(1, &draw_color_);
  glDeleteFramebuffers(1, &resolve_fbo_);
  glDeleteRenderbuffers(1, &resolve_color_);
}

void Framebuffer::bind() {
  glBindFramebuffer(GL_FRAMEBUFFER, samples_ > 1 ? draw_fbo_ : resolve_fbo_);
  glViewport(0, 0, width_, height_);
}

void Framebuffer::read_rgba(std::vector<std::uint8_t>& pixels) {
  if (samples_ > 1) {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, draw_fbo_);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolve_fbo_);
    glBlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_, GL_COLOR_BUFFER_BIT,
                      GL_NEAREST);
  }
  glBindFramebuffer(GL_READ_FRAMEBUFFER, resolve_fbo_);
  read_pixels_top_down(width_, height_, pixels);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

}  // namespace weft::render
