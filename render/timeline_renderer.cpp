#include "timeline_renderer.h"

#include <algorithm>
#include <cmath>

#include "device_scale.h"
#include "instance_buffers.h"
#include "shader_program.h"
#include "texel_texture.h"

namespace weft::render {

namespace {

void set_color_uniform(GLint location, Rgba8 c) {
  glUniform4f(location, static_cast<float>(c & 0xff) / 255.0f,
              static_cast<float>((c >> 8) & 0xff) / 255.0f,
              static_cast<float>((c >> 16) & 0xff) / 255.0f,
              static_cast<float>((c >> 24) & 0xff) / 255.0f);
}

// The view as the affine maps the shaders use: x_px = t * a + b for geometry
// times t (relative to `origin`), and a row's top edge y_px = row * c + d.
// Computed in double so that a far-away origin costs no precision.
struct ShaderMaps {
  float time_scale, time_offset, row_scale, row_offset;
};

ShaderMaps shader_maps(const ViewTransform& view, TimeNs origin) {
  double px_per_ns = view.px_per_ns();
  return {static_cast<float>(px_per_ns),
          static_cast<float>(view.plot.x + (static_cast<double>(origin) - view.t0_ns) * px_per_ns),
          static_cast<float>(view.px_per_row()),
          static_cast<float>(view.plot.y - view.row0 * view.px_per_row())};
}

void set_common_uniforms(const ShaderProgram& program, const ViewTransform& view,
                         const ShaderMaps& maps) {
  glUniform2f(program.uniform("u_time_map"), maps.time_scale, maps.time_offset);
  glUniform2f(program.uniform("u_row_map"), maps.row_scale, maps.row_offset);
  glUniform2f(program.uniform("u_framebuffer"), static_cast<float>(view.framebuffer_width),
              static_cast<float>(view.framebuffer_height));
}

// Clips drawing to the plot area (GL scissor boxes are in framebuffer pixels
// and count rows from the bottom).
void scissor_to_plot(const ViewTransform& view) {
  const float scale = device_scale(view.framebuffer_width);
  int x = static_cast<int>(std::floor(view.plot.x * scale));
  int y = static_cast<int>(std::floor(view.plot.y * scale));
  int w = static_cast<int>(std::ceil(view.plot.width * scale));
  int h = static_cast<int>(std::ceil(view.plot.height * scale));
  const int framebuffer_height = static_cast<int>(std::lround(view.framebuffer_height * scale));
  glEnable(GL_SCISSOR_TEST);
  glScissor(x, framebuffer_height - (y + h), std::max(w, 0), std::max(h, 0));
}

}  // namespace

TimelineRenderer::TimelineRenderer()
    : band_program_(std::make_unique<ShaderProgram>("row_bands.vert", "row_bands.frag")),
      box_program_(std::make_unique<ShaderProgram>("timeline_box.vert", "timeline_box.frag")),
      line_program_(std::make_unique<ShaderProgram>("message_line.vert", "message_line.frag")),
      image_program_(std::make_unique<ShaderProgram>("cell_image.vert", "cell_image.frag")),
      cover_program_(std::make_unique<ShaderProgram>("cell_image.vert", "line_cover.frag")) {
  image_texture_ = make_texel_texture();  // a level-of-detail cell is a flat block
  palette_texture_ = make_texel_texture();
  cover_texture_ = make_texel_texture();
  glGenVertexArrays(1, &empty_vao_);
  glGenVertexArrays(1, &box_vao_);
  glGenVertexArrays(1, &line_vao_);
  glGenBuffers(4, box_buffers_);
  glGenBuffers(2, line_buffers_);
  attach_instanced(box_vao_, box_buffers_[0], 0, 2, GL_FLOAT, GL_FALSE);
  attach_instanced(box_vao_, box_buffers_[1], 1, 2, GL_FLOAT, GL_FALSE);
  attach_instanced(box_vao_, box_buffers_[2], 2, 4, GL_UNSIGNED_BYTE, GL_TRUE);
  attach_instanced(box_vao_, box_buffers_[3], 3, 1, GL_FLOAT, GL_FALSE);
  attach_instanced(line_vao_, line_buffers_[0], 0, 2, GL_FLOAT, GL_FALSE);
  attach_instanced(line_vao_, line_buffers_[1], 1, 2, GL_FLOAT, GL_FALSE);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

TimelineRenderer::~TimelineRenderer() {
  glDeleteTextures(1, &image_texture_);
  glDeleteTextures(1, &palette_texture_);
  glDeleteTextures(1, &cover_texture_);
  glDeleteBuffers(4, box_buffers_);
  glDeleteBuffers(2, line_buffers_);
  glDeleteVertexArrays(1, &empty_vao_);
  glDeleteVertexArrays(1, &box_vao_);
  glDeleteVertexArrays(1, &line_vao_);
}

void TimelineRenderer::upload(const TimelineGeometry& geometry) {
  // Boxes painted into the image are not drawn again (timeline_raster.h).
  if (!geometry.boxes_in_image) {
    upload_array(box_buffers_[0], geometry.box_span);
    upload_array(box_buffers_[1], geometry.box_row);
    upload_array(box_buffers_[2], geometry.box_color);
    upload_array(box_buffers_[3], geometry.box_height);
  }
  lines_in_image_ = geometry.lines_in_image();
  if (!lines_in_image_) {
    upload_array(line_buffers_[0], geometry.line_time);
    upload_array(line_buffers_[1], geometry.line_row);
  }
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  image_.width = geometry.image.width;
  image_.height = geometry.image.height;
  image_.x0 = geometry.image.x0;
  image_.dx = geometry.image.dx;
  image_.row0 = geometry.image.row0;
  image_.drow = geometry.image.drow;
  if (!geometry.image.empty()) {
    glBindTexture(GL_TEXTURE_2D, image_texture_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);  // rows of single bytes are not 4-aligned
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, geometry.image.width, geometry.image.height, 0, GL_RED,
                 GL_UNSIGNED_BYTE, geometry.image.cells.data());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glBindTexture(GL_TEXTURE_2D, palette_texture_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 geometry.image.palette.data());
    if (lines_in_image_) {
      glBindTexture(GL_TEXTURE_2D, cover_texture_);
      glPixelStorei(GL_UNPACK_ALIGNMENT, 2);
      glTexImage2D(GL_TEXTURE_2D, 0, GL_R16, geometry.image.width, geometry.image.height, 0, GL_RED,
                   GL_UNSIGNED_SHORT, geometry.image.line_cover.data());
      glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    }
    glBindTexture(GL_TEXTURE_2D, 0);
  }
  box_count_ = geometry.boxes_in_image ? 0 : static_cast<GLsizei>(geometry.box_count());
  line_count_ = static_cast<GLsizei>(geometry.line_count());
  origin_ns_ = geometry.origin_ns;
}

void TimelineRenderer::draw(const ViewTransform& view, double row_count,
                            const TimelineStyle& style) {
  if (view.plot.width <= 0 || view.plot.height <= 0 || view.t1_ns <= view.t0_ns) return;
  scissor_to_plot(view);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  draw_bands(view, row_count, style);
  draw_image(view);
  draw_boxes(view, style);
  if (style.show_messages) draw_lines(view, style);
  glBindVertexArray(0);
  glUseProgram(0);
  glDisable(GL_SCISSOR_TEST);
}

void TimelineRenderer::draw_bands(const ViewTransform& view, double row_count,
                                  const TimelineStyle& style) {
  // Below 3 px a row the bands only add a moiré.
  if (view.px_per_row() < 3.0) return;
  ShaderMaps maps = shader_maps(view, origin_ns_);
  band_program_->use();
  set_common_uniforms(*band_program_, view, maps);
  glUniform4f(band_program_->uniform("u_rect"), view.plot.x, view.plot.y, view.plot.width,
              view.plot.height);
  glUniform1f(band_program_->uniform("u_row_count"), static_cast<float>(row_count));
  glUniform1f(band_program_->uniform("u_scale"), device_scale(view.framebuffer_width));
  set_color_uniform(band_program_->uniform("u_even_color"), style.band_even);
  set_color_uniform(band_program_->uniform("u_odd_color"), style.band_odd);
  glUniform1f(band_program_->uniform("u_runtime_row"),
              static_cast<float>(style.runtime_row0 < 0 ? row_count : style.runtime_row0));
  set_color_uniform(band_program_->uniform("u_runtime_even_color"), style.band_runtime_even);
  set_color_uniform(band_program_->uniform("u_runtime_odd_color"), style.band_runtime_odd);
  glBindVertexArray(empty_vao_);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

void TimelineRenderer::draw_boxes(const ViewTransform& view, const TimelineStyle& style) {
  if (box_count_ == 0) return;
  ShaderMaps maps = shader_maps(view, origin_ns_);
  double row_px = view.px_per_row();
  box_program_->use();
  set_common_uniforms(*box_program_, view, maps);
  // Leave a gap between rows once rows are tall enough to afford one.
  glUniform1f(box_program_->uniform("u_row_gap"),
              static_cast<float>(row_px >= 6.0 ? std::min(row_px * 0.12, 4.0) : 0.0));
  glUniform1f(box_program_->uniform("u_depth_inset"),
              static_cast<float>(std::min(row_px * 0.1, 4.0)));
  glUniform1i(box_program_->uniform("u_highlight"),
              style.highlight_box >= 0 && style.highlight_box < box_count_
                  ? static_cast<GLint>(style.highlight_box)
                  : -1);
  // Boxes are opaque: without blending llvmpipe writes each pixel once
  // instead of reading it back (about a third of a zoomed-out frame).
  glDisable(GL_BLEND);
  glBindVertexArray(box_vao_);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, box_count_);
  glEnable(GL_BLEND);
}

void TimelineRenderer::draw_image_quad(const ViewTransform& view, const ShaderProgram& program) {
  ShaderMaps maps = shader_maps(view, origin_ns_);
  set_common_uniforms(program, view, maps);
  glUniform4f(program.uniform("u_extent"), static_cast<float>(image_.x0),
              static_cast<float>(image_.x0 + image_.dx * image_.width), static_cast<float>(image_.row0),
              static_cast<float>(image_.row0 + image_.drow * image_.height));
  glBindVertexArray(empty_vao_);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

void TimelineRenderer::draw_image(const ViewTransform& view) {
  if (image_.empty()) return;
  image_program_->use();
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, palette_texture_);
  glUniform1i(image_program_->uniform("u_palette"), 1);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, image_texture_);
  glUniform1i(image_program_->uniform("u_cells"), 0);
  glDisable(GL_BLEND);  // cells are opaque; empty ones are discarded
  draw_image_quad(view, *image_program_);
  glEnable(GL_BLEND);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, 0);
}

void TimelineRenderer::draw_lines(const ViewTransform& view, const TimelineStyle& style) {
  if (line_count_ == 0) return;
  // Thousands of lines over a zoomed-out view pile up into a solid sheet that
  // hides the boxes below; fade them as they outnumber the pixel columns.
  double density = view.plot.width / (2.0 * static_cast<double>(line_count_));
  auto alpha = static_cast<double>(style.message >> 24) * std::clamp(density, 0.2, 1.0);
  Rgba8 color = (style.message & 0x00ffffffu) | static_cast<Rgba8>(alpha + 0.5) << 24;
  if (lines_in_image_) {
    if (image_.empty()) return;
    cover_program_->use();
    set_color_uniform(cover_program_->uniform("u_color"), color);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, cover_texture_);
    glUniform1i(cover_program_->uniform("u_cover"), 0);
    draw_image_quad(view, *cover_program_);
    glBindTexture(GL_TEXTURE_2D, 0);
    return;
  }
  ShaderMaps maps = shader_maps(view, origin_ns_);
  line_program_->use();
  set_common_uniforms(*line_program_, view, maps);
  glUniform1f(line_program_->uniform("u_half_width"), style.message_half_width);
  set_color_uniform(line_program_->uniform("u_color"), color);
  glBindVertexArray(line_vao_);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, line_count_);
}

}  // namespace weft::render
