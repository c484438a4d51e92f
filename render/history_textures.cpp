#include "history_textures.h"

#include <algorithm>

#include "common/error.h"
#include "device_scale.h"
#include "instance_buffers.h"
#include "shader_program.h"
#include "texel_texture.h"

namespace weft::render {

namespace {

GLuint make_float_texture(GLenum internal_format, GLenum format, int width, int height) {
  const GLuint texture = make_texel_texture();
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(internal_format), width, height, 0, format, GL_FLOAT, nullptr);
  glBindTexture(GL_TEXTURE_2D, 0);
  return texture;
}

void check_complete(const char* what) {
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    throw Error(std::string("OpenGL: the particle history's ") + what +
                " framebuffer is incomplete (float render targets unsupported?)");
}

// The caller's draw framebuffer and viewport, put back when the history's
// own passes are done.
class SavedTarget {
 public:
  SavedTarget() {
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &fbo_);
    glGetIntegerv(GL_VIEWPORT, viewport_);
  }
  ~SavedTarget() {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(fbo_));
    glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  }
  SavedTarget(const SavedTarget&) = delete;
  SavedTarget& operator=(const SavedTarget&) = delete;

 private:
  GLint fbo_ = 0;
  GLint viewport_[4] = {};
};

}  // namespace

HistoryTextures::HistoryTextures()
    : deposit_program_(std::make_unique<ShaderProgram>("history_deposit.vert", "history_deposit.frag")),
      reduce_program_(std::make_unique<ShaderProgram>("fullscreen.vert", "history_reduce.frag")),
      tone_program_(std::make_unique<ShaderProgram>("history_tone.vert", "history_tone.frag")) {
  glGenVertexArrays(1, &vao_);
  glGenVertexArrays(1, &empty_vao_);
  glGenBuffers(2, deposit_buffers_);
  attach_instanced(vao_, deposit_buffers_[0], 0, 4, GL_FLOAT, GL_FALSE);
  attach_instanced(vao_, deposit_buffers_[1], 1, 4, GL_UNSIGNED_BYTE, GL_TRUE);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

HistoryTextures::~HistoryTextures() {
  release();
  glDeleteBuffers(2, deposit_buffers_);
  glDeleteVertexArrays(1, &vao_);
  glDeleteVertexArrays(1, &empty_vao_);
}

void HistoryTextures::release() {
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (density_) glDeleteTextures(1, &density_);
  if (color_) glDeleteTextures(1, &color_);
  fbo_ = density_ = color_ = 0;
  if (!level_fbos_.empty()) glDeleteFramebuffers(static_cast<GLsizei>(level_fbos_.size()), level_fbos_.data());
  if (!level_textures_.empty())
    glDeleteTextures(static_cast<GLsizei>(level_textures_.size()), level_textures_.data());
  level_fbos_.clear();
  level_textures_.clear();
  level_sizes_.clear();
  width_ = height_ = 0;
}

void HistoryTextures::allocate(int width, int height) {
  release();
  width_ = width;
  height_ = height;
  density_ = make_float_texture(GL_R32F, GL_RED, width, height);
  color_ = make_float_texture(GL_RGBA32F, GL_RGBA, width, height);
  glGenFramebuffers(1, &fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, density_, 0);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D, color_, 0);
  const GLenum targets[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
  glDrawBuffers(2, targets);
  check_complete("density and color");
  // Reduction levels down to 1 × 1.
  int w = width, h = height;
  do {
    w = (w + 3) / 4;
    h = (h + 3) / 4;
    GLuint texture = make_float_texture(GL_R32F, GL_RED, w, h);
    GLuint fbo = 0;
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    check_complete("reduction");
    level_textures_.push_back(texture);
    level_fbos_.push_back(fbo);
    level_sizes_.push_back({w, h});
  } while (w > 1 || h > 1);
}

void HistoryTextures::update(ParticleHistory& history) {
  if (history.width() <= 0 || history.height() <= 0) return;  // never sized: nothing to hold
  const bool fresh = history.generation() != generation_;
  const bool resized = history.width() != width_ || history.height() != height_;
  if (!fresh && !resized && history.pending().empty()) return;
  SavedTarget saved;
  if (resized) allocate(history.width(), history.height());
  if (fresh || resized) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo_);
    glViewport(0, 0, width_, height_);
    glDisable(GL_BLEND);
    const GLfloat zero[4] = {0, 0, 0, 0};
    glClearBufferfv(GL_COLOR, 0, zero);
    glClearBufferfv(GL_COLOR, 1, zero);
    generation_ = history.generation();
    empty_ = true;
    max_stale_ = true;
  }
  if (!history.pending().empty()) {
    deposit(history.pending(), history.dot());
    history.pending().clear();
    empty_ = false;
    max_stale_ = true;
  }
}

void HistoryTextures::deposit(const std::vector<HistoryDeposit>& deposits, int dot) {
  places_.resize(4 * deposits.size());
  colors_.resize(deposits.size());
  for (std::size_t i = 0; i < deposits.size(); ++i) {
    const HistoryDeposit& d = deposits[i];
    places_[4 * i] = static_cast<float>(d.x);
    places_[4 * i + 1] = static_cast<float>(d.y);
    places_[4 * i + 2] = static_cast<float>(d.x_lo);
    places_[4 * i + 3] = static_cast<float>(d.x_hi);
    colors_[i] = d.color;
  }
  upload_array(deposit_buffers_[0], places_, GL_STREAM_DRAW);
  upload_array(deposit_buffers_[1], colors_, GL_STREAM_DRAW);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo_);
  glViewport(0, 0, width_, height_);
  // Float targets sum exactly: a whole count of particles per pixel.
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFunc(GL_ONE, GL_ONE);
  deposit_program_->use();
  glUniform2f(deposit_program_->uniform("u_size"), static_cast<float>(width_), static_cast<float>(height_));
  glUniform1f(deposit_program_->uniform("u_dot"), static_cast<float>(dot));
  glBindVertexArray(vao_);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, static_cast<GLsizei>(deposits.size()));
  glBindVertexArray(0);
}

void HistoryTextures::reduce_max() {
  glDisable(GL_BLEND);
  reduce_program_->use();
  glUniform1i(reduce_program_->uniform("u_source"), 0);
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(empty_vao_);
  GLuint source = density_;
  std::array<int, 2> source_size{width_, height_};
  for (std::size_t k = 0; k < level_fbos_.size(); ++k) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, level_fbos_[k]);
    glViewport(0, 0, level_sizes_[k][0], level_sizes_[k][1]);
    glBindTexture(GL_TEXTURE_2D, source);
    glUniform2i(reduce_program_->uniform("u_source_size"), source_size[0], source_size[1]);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    source = level_textures_[k];
    source_size = level_sizes_[k];
  }
  glBindVertexArray(0);
  max_stale_ = false;
}

void HistoryTextures::draw(const PixelRect& plot, int framebuffer_width, int framebuffer_height, float omin) {
  if (empty_ || width_ == 0) return;
  if (max_stale_) {
    SavedTarget saved;
    reduce_max();
  }
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  tone_program_->use();
  glUniform4f(tone_program_->uniform("u_rect"), plot.x, plot.y, static_cast<float>(width_),
              static_cast<float>(height_));
  glUniform2f(tone_program_->uniform("u_framebuffer"), static_cast<float>(framebuffer_width),
              static_cast<float>(framebuffer_height));
  glUniform2f(tone_program_->uniform("u_origin"), plot.x,
              static_cast<float>(framebuffer_height) - plot.y - static_cast<float>(height_));
  glUniform1f(tone_program_->uniform("u_scale"), device_scale(framebuffer_width));
  glUniform1f(tone_program_->uniform("u_omin"), omin);
  glUniform1i(tone_program_->uniform("u_density"), 0);
  glUniform1i(tone_program_->uniform("u_color"), 1);
  glUniform1i(tone_program_->uniform("u_max"), 2);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, density_);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, color_);
  glActiveTexture(GL_TEXTURE2);
  glBindTexture(GL_TEXTURE_2D, level_textures_.back());
  glBindVertexArray(empty_vao_);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glBindVertexArray(0);
  glActiveTexture(GL_TEXTURE2);
  glBindTexture(GL_TEXTURE_2D, 0);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, 0);
}

}  // namespace weft::render
