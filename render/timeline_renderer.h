#pragma once
// Draws the physical timeline (row bands, event boxes, message lines) into the
// current framebuffer with three instanced draw calls. It knows nothing of text
// or UI: labels, axes and legends are drawn over it by the caller.
#include <cstdint>
#include <memory>

#include "gl_api.h"
#include "region_palette.h"
#include "timeline_geometry.h"
#include "view_transform.h"

namespace weft::render {

class ShaderProgram;

struct TimelineStyle {
  Rgba8 band_even = rgba8(38, 38, 44);
  Rgba8 band_odd = rgba8(31, 31, 36);
  // Rows from runtime_row0 on get the grey runtime bands (-1: none).
  double runtime_row0 = -1;
  Rgba8 band_runtime_even = rgba8(62, 62, 64);
  Rgba8 band_runtime_odd = rgba8(54, 54, 56);
  Rgba8 message = rgba8(240, 240, 240, 200);
  float message_half_width = 0.75f;
  bool show_messages = true;
  std::int64_t highlight_box = -1;  // box index (TimelineGeometry order) drawn brighter
};

class TimelineRenderer {
 public:
  // Requires a current OpenGL 3.3 core context; compiles the shaders.
  TimelineRenderer();
  ~TimelineRenderer();
  TimelineRenderer(const TimelineRenderer&) = delete;
  TimelineRenderer& operator=(const TimelineRenderer&) = delete;

  // Copies the instances to GPU buffers; call when a new window was loaded.
  void upload(const TimelineGeometry& geometry);
  // Draws into the current framebuffer, clipped to view.plot. `row_count` is
  // the number of rows that exist (bands stop after the last one).
  void draw(const ViewTransform& view, double row_count, const TimelineStyle& style);

  // Origin of the uploaded geometry: geometry times are relative to it.
  TimeNs origin_ns() const { return origin_ns_; }

 private:
  void draw_bands(const ViewTransform& view, double row_count, const TimelineStyle& style);
  void draw_boxes(const ViewTransform& view, const TimelineStyle& style);
  void draw_lines(const ViewTransform& view, const TimelineStyle& style);
  void draw_image(const ViewTransform& view);
  // The quad of the uploaded image with `program` (cell_image.vert) in use.
  void draw_image_quad(const ViewTransform& view, const ShaderProgram& program);

  std::unique_ptr<ShaderProgram> band_program_;
  std::unique_ptr<ShaderProgram> box_program_;
  std::unique_ptr<ShaderProgram> line_program_;
  std::unique_ptr<ShaderProgram> image_program_;
  std::unique_ptr<ShaderProgram> cover_program_;
  GLuint image_texture_ = 0;    // R8: the cells' palette indices
  GLuint palette_texture_ = 0;  // 256 x 1 RGBA8
  GLuint cover_texture_ = 0;    // R16: message lines painted over the cells (or none)
  bool lines_in_image_ = false;
  CellImage image_;  // extent of the uploaded texture (cells not kept)
  GLuint empty_vao_ = 0;  // core profile needs a bound VAO even with no attributes
  GLuint box_vao_ = 0;
  GLuint line_vao_ = 0;
  GLuint box_buffers_[4] = {};   // span, row, color, height
  GLuint line_buffers_[2] = {};  // time, row
  GLsizei box_count_ = 0;
  GLsizei line_count_ = 0;
  TimeNs origin_ns_ = 0;
};

}  // namespace weft::render
