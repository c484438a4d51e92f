#include "particle_renderer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "history_textures.h"
#include "particle_instances.h"
#include "particle_scale.h"
#include "shader_program.h"
#include "texel_texture.h"

namespace weft::render {

ParticlePath choose_particle_path(std::string_view gl_renderer, const char* forced) {
  if (forced && std::strcmp(forced, "gpu") == 0) return ParticlePath::GpuInstanced;
  if (forced && std::strcmp(forced, "cpu") == 0) return ParticlePath::CpuSplat;
  for (std::string_view software : {"llvmpipe", "softpipe", "SwiftShader"})
    if (gl_renderer.find(software) != std::string_view::npos) return ParticlePath::CpuSplat;
  return ParticlePath::GpuInstanced;
}

ParticlePath particle_path_for_context() {
  const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return choose_particle_path(name ? name : "", std::getenv("WEFT_PARTICLE_PATH"));
}

const char* particle_path_name(ParticlePath path) {
  return path == ParticlePath::CpuSplat ? "cpu splat" : "gpu instanced";
}

ParticleHistory::Store history_store_for(ParticlePath path) {
  return path == ParticlePath::CpuSplat ? ParticleHistory::Store::Cpu : ParticleHistory::Store::Gpu;
}

void splat_particles(ParticleField& field, TimeNs now, const ParticleScale& scale, int width, int height,
                     std::vector<Rgba8>& out) {
  out.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), 0);
  field.place(width, height, scale);
  const int half = kParticleDotPx / 2;
  const double inv_fade = scale.fade_ns > 0 ? 1.0 / scale.fade_ns : 0.0;
  const PixelRect plot{0, 0, static_cast<float>(width), static_cast<float>(height)};
  for (std::size_t i = 0; i < field.size(); ++i) {
    const TimeNs start = field.start_ns[i];
    const TimeNs end = field.end_ns[i];
    if (start > now) continue;
    // particle_fade_alpha, inlined: this loop runs over every live particle each frame.
    const double since_end = static_cast<double>(now - end);
    const double alpha = since_end < 0 ? 1.0 : 1.0 - since_end * inv_fade;
    if (alpha <= 0) continue;
    const auto a = static_cast<Rgba8>(alpha * 255.0 + 0.5);
    if (a == 0) continue;
    const Rgba8 c = (field.color[i] & 0x00ffffffu) | a << 24;
    // Ended particles sit at their cached stopping row; running ones climb.
    const int y = now >= end ? field.stop_py[i]
                             : static_cast<int>(particle_px_y(plot, log_age_share(static_cast<double>(now - start),
                                                                                  scale.dmax_ns)) + 0.5f);
    const int x = field.px[i];
    const int x0 = std::max(x - half, 0);
    const int x1 = std::min(x - half + kParticleDotPx - 1, width - 1);
    const int y0 = std::max(y - half, 0);
    const int y1 = std::min(y - half + kParticleDotPx - 1, height - 1);
    for (int py = y0; py <= y1; ++py) {
      Rgba8* row = out.data() + static_cast<std::size_t>(py) * static_cast<std::size_t>(width);
      for (int px = x0; px <= x1; ++px)
        if ((row[px] >> 24) <= a) row[px] = c;
    }
  }
}

ParticleRenderer::ParticleRenderer(ParticlePath path)
    : path_(path),
      image_program_(std::make_unique<ShaderProgram>("particle_image.vert", "particle_image.frag")) {
  history_texture_ = make_texel_texture();
  splat_texture_ = make_texel_texture();
  glGenVertexArrays(1, &empty_vao_);
  if (path_ == ParticlePath::GpuInstanced) {
    point_program_ = std::make_unique<ShaderProgram>("particle_point.vert", "particle_point.frag");
    history_textures_ = std::make_unique<HistoryTextures>();
    instances_ = std::make_unique<ParticleInstances>();
  }
}

ParticleRenderer::~ParticleRenderer() {
  glDeleteTextures(1, &history_texture_);
  glDeleteTextures(1, &splat_texture_);
  glDeleteVertexArrays(1, &empty_vao_);
}

void ParticleRenderer::upload_image(GLuint texture, int width, int height, const std::vector<Rgba8>& pixels) {
  glBindTexture(GL_TEXTURE_2D, texture);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  int* size = texture == history_texture_ ? history_size_ : splat_size_;
  if (size[0] != width || size[1] != height) {
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    size[0] = width;
    size[1] = height;
  } else {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  }
  glBindTexture(GL_TEXTURE_2D, 0);
}

void ParticleRenderer::draw_image(GLuint texture, const PixelRect& rect, int fb_w, int fb_h) {
  image_program_->use();
  glUniform4f(image_program_->uniform("u_rect"), rect.x, rect.y, rect.width, rect.height);
  glUniform2f(image_program_->uniform("u_framebuffer"), static_cast<float>(fb_w), static_cast<float>(fb_h));
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, texture);
  glUniform1i(image_program_->uniform("u_image"), 0);
  glBindVertexArray(empty_vao_);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glBindTexture(GL_TEXTURE_2D, 0);
}

void ParticleRenderer::draw_instanced(const PixelRect& plot, int fb_w, int fb_h, ParticleField& field, TimeNs now,
                                      const ParticleScale& scale) {
  instances_->sync(field, scale);
  if (instances_->slots() == 0) return;
  point_program_->use();
  glUniform4f(point_program_->uniform("u_plot"), plot.x, plot.y, plot.width, plot.height);
  glUniform2f(point_program_->uniform("u_framebuffer"), static_cast<float>(fb_w), static_cast<float>(fb_h));
  glUniform2ui(point_program_->uniform("u_now"), time_low_bits(now), time_high_bits(now));
  glUniform1f(point_program_->uniform("u_ln_dmax"), static_cast<float>(std::log(std::max(scale.dmax_ns, 2.0))));
  glUniform1f(point_program_->uniform("u_fade_ns"), static_cast<float>(scale.fade_ns));
  glUniform1f(point_program_->uniform("u_process_count"),
              static_cast<float>(std::max<std::size_t>(scale.process_count, 1)));
  glUniform1f(point_program_->uniform("u_dot"), static_cast<float>(kParticleDotPx));
  glBindVertexArray(instances_->vertex_array());
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, instances_->slots());
}

void ParticleRenderer::draw(const PixelRect& plot, int framebuffer_width, int framebuffer_height,
                            ParticleField& field, TimeNs now,
                            const ParticleScale& scale, ParticleHistory& history, float omin) {
  const int width = history.width();
  const int height = history.height();
  const PixelRect rect{plot.x, plot.y, static_cast<float>(width), static_cast<float>(height)};
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_SCISSOR_TEST);
  if (history.store() == ParticleHistory::Store::Gpu) {
    if (!history_textures_) history_textures_ = std::make_unique<HistoryTextures>();
    history_textures_->update(history);
    history_textures_->draw(rect, framebuffer_width, framebuffer_height, omin);
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  } else {
    if (history.dirty() || omin != toned_omin_ || history_size_[0] != width || history_size_[1] != height) {
      history.tone_map(omin, pixels_);
      toned_omin_ = omin;
      upload_image(history_texture_, width, height, pixels_);
    }
    if (!history.empty()) draw_image(history_texture_, rect, framebuffer_width, framebuffer_height);
  }
  if (path_ == ParticlePath::CpuSplat) {
    splat_particles(field, now, scale, width, height, pixels_);
    upload_image(splat_texture_, width, height, pixels_);
    draw_image(splat_texture_, rect, framebuffer_width, framebuffer_height);
  } else {
    draw_instanced(rect, framebuffer_width, framebuffer_height, field, now, scale);
  }
  glBindVertexArray(0);
  glUseProgram(0);
}

}  // namespace weft::render
