#pragma once
// The history textures of particle-animation.txt §3.2.2 on the GPU: every
// retired particle is drawn with additive blending into two float render
// targets, a density texture (R32F: how many particles covered the pixel)
// and a color texture (RGBA32F: the sum of their colors). D_max, the largest
// density, is found by max-reduction passes down to one texel, so nothing is
// read back; the background is then drawn tone mapped in one pass,
// P = C × (O_min + (1 − O_min) · ln D / ln D_max), C the mean color
// (history_tone.frag; the same rule as history_tone_factor).
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "gl_api.h"
#include "particle_history.h"
#include "view_transform.h"

namespace weft::render {

class ShaderProgram;

class HistoryTextures {
 public:
  // Requires a current OpenGL 3.3 core context.
  HistoryTextures();
  ~HistoryTextures();
  HistoryTextures(const HistoryTextures&) = delete;
  HistoryTextures& operator=(const HistoryTextures&) = delete;

  // Brings the textures up to `history` (a Gpu store): starts over when it
  // was resized or cleared, then draws its pending deposits and empties them.
  void update(ParticleHistory& history);
  // Draws the tone mapped background into `plot` of the bound framebuffer
  // (its size must be the history's), straight-alpha blended.
  void draw(const PixelRect& plot, int framebuffer_width, int framebuffer_height, float omin);

 private:
  void allocate(int width, int height);
  void release();
  void deposit(const std::vector<HistoryDeposit>& deposits, int dot);
  void reduce_max();

  std::unique_ptr<ShaderProgram> deposit_program_;
  std::unique_ptr<ShaderProgram> reduce_program_;
  std::unique_ptr<ShaderProgram> tone_program_;
  int width_ = 0;
  int height_ = 0;
  std::uint64_t generation_ = ~std::uint64_t{0};
  bool empty_ = true;
  bool max_stale_ = true;
  GLuint fbo_ = 0;
  GLuint density_ = 0;  // R32F
  GLuint color_ = 0;    // RGBA32F
  // Max-reduction levels, each a quarter of the one before in each axis,
  // the last one texel: D_max.
  std::vector<GLuint> level_fbos_;
  std::vector<GLuint> level_textures_;
  std::vector<std::array<int, 2>> level_sizes_;
  GLuint vao_ = 0;             // deposits: one instance each
  GLuint deposit_buffers_[2] = {};  // (x, y, x_lo, x_hi), color
  GLuint empty_vao_ = 0;
  std::vector<float> places_;  // reused upload arrays
  std::vector<Rgba8> colors_;
};

}  // namespace weft::render
