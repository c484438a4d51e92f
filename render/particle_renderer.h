#pragma once
// Draws the particle scatterplot's pixels (history background, then the live
// particles) into a plot rectangle of the bound framebuffer. Text, grid lines
// and the legend are drawn over it by the caller.
//
// Two ways to draw the particles, chosen by renderer (DESIGN.md: llvmpipe
// draws only 1-5M GL points/s, while splatting on the CPU into one texture
// and uploading it runs 1M particles at about 90 fps):
//  - CpuSplat: the particles are splatted into an RGBA8 image, one upload and
//    one textured quad per frame;
//  - GpuInstanced: one instanced draw of all particles; the vertex shader
//    moves and fades them (particle_point.vert), and a frame uploads only the
//    particles started since the last one (ParticleInstances).
// Both draw the same pixels. The history follows the path: with the CPU
// splat it is kept and tone mapped on the CPU (ParticleHistory::tone_map)
// and uploaded only when it changed; with instanced drawing it lives in
// float textures on the GPU (HistoryTextures), the paper's history textures.
// history_store_for(path) says which store a ParticleHistory needs.
#include <memory>
#include <string_view>
#include <vector>

#include "gl_api.h"
#include "particle_field.h"
#include "view_transform.h"

namespace weft::render {

class HistoryTextures;
class ParticleInstances;
class ShaderProgram;

enum class ParticlePath { CpuSplat, GpuInstanced };

// CpuSplat on software renderers (GL_RENDERER naming llvmpipe, softpipe or
// SwiftShader), GpuInstanced elsewhere. `forced` ("cpu" or "gpu", e.g. from
// the WEFT_PARTICLE_PATH environment variable) overrides; null or "" does not.
ParticlePath choose_particle_path(std::string_view gl_renderer, const char* forced);
const char* particle_path_name(ParticlePath path);
ParticleHistory::Store history_store_for(ParticlePath path);
// choose_particle_path for the current context's GL_RENDERER and the
// WEFT_PARTICLE_PATH environment variable.
ParticlePath particle_path_for_context();

// Splats the particles alive at `now` into a `width` × `height` straight-alpha
// image (row 0 at the top), a kParticleDotPx square each; a more opaque
// particle covers a fainter one.
void splat_particles(ParticleField& field, TimeNs now, const ParticleScale& scale, int width,
                     int height, std::vector<Rgba8>& out);

class ParticleRenderer {
 public:
  // Requires a current OpenGL 3.3 core context.
  explicit ParticleRenderer(ParticlePath path);
  ~ParticleRenderer();
  ParticleRenderer(const ParticleRenderer&) = delete;
  ParticleRenderer& operator=(const ParticleRenderer&) = delete;

  ParticlePath path() const { return path_; }
  // Draws `history` (of history_store_for(path())) tone mapped with `omin`,
  // then the particles at `now`, into `plot` (its size must be the history's).
  void draw(const PixelRect& plot, int framebuffer_width, int framebuffer_height, ParticleField& field,
            TimeNs now, const ParticleScale& scale, ParticleHistory& history, float omin);
  // The GPU path's instance buffer (null on the CPU path), for tests.
  const ParticleInstances* instances() const { return instances_.get(); }

 private:
  void draw_image(GLuint texture, const PixelRect& rect, int fb_w, int fb_h);
  void upload_image(GLuint texture, int width, int height, const std::vector<Rgba8>& pixels);
  void draw_instanced(const PixelRect& plot, int fb_w, int fb_h, ParticleField& field, TimeNs now,
                      const ParticleScale& scale);

  ParticlePath path_;
  std::unique_ptr<ShaderProgram> image_program_;
  std::unique_ptr<ShaderProgram> point_program_;
  std::unique_ptr<HistoryTextures> history_textures_;  // GpuInstanced
  GLuint history_texture_ = 0;
  GLuint splat_texture_ = 0;
  GLuint empty_vao_ = 0;
  std::unique_ptr<ParticleInstances> instances_;     // GpuInstanced
  int history_size_[2] = {0, 0};
  float toned_omin_ = -1;      // the O_min the uploaded history was tone mapped with
  int splat_size_[2] = {0, 0};
  std::vector<Rgba8> pixels_;  // reused for the tone mapped history and the splat
};

}  // namespace weft::render
