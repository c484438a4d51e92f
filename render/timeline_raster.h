#pragma once
// Dense timeline windows as one image (for software renderers). On llvmpipe
// every box instance costs about a microsecond of a frame whatever its size,
// so a window of 100,000 events costs 100 ms a frame to draw as boxes,
// though it covers a few hundred thousand pixels. Painted once per load into a cell per pixel at the load's zoom, it
// is drawn as one textured quad (CellImage) like the level of detail.
//
// The painting follows the box shader's rules at the load's zoom (the gap
// under tall rows, nested calls inset by depth, at least 1 px each way, the
// darker edge of boxes of 6 px and more) and the boxes' order: a box drawn
// later covers earlier ones on the pixels they share, as on the GPU. The
// image's cells are the screen's pixels at the view the load was made for;
// panned by a fraction of a pixel since, edges may fall a pixel from where
// the GPU would draw them. The hovered box is not brightened.
// The boxes stay in the geometry for picking; the renderer skips drawing them.
#include <cstdint>
#include <string>

#include "timeline_geometry.h"

namespace weft::render {

// Where the image's cells fall: pixels per x unit (ns or steps) and per row
// at the load's zoom, and the extent to cover, x relative to the geometry's
// origin and rows as in the boxes.
struct RasterExtent {
  double px_per_x = 0;
  double px_per_row = 0;
  double x0 = 0, x1 = 0;
  double row0 = 0, row1 = 0;
  // Where x0 and row0 fall inside a screen pixel (0..1) when the view is as
  // the load expects: the cells are then the screen's pixels exactly.
  double x_phase = 0, y_phase = 0;
};

// The most cells an image may take (a window is about twice the plot each way).
constexpr std::int64_t kMaxRasterCells = std::int64_t{1} << 24;

// Paints the boxes of `g` into g.image (which must be empty) and sets
// g.boxes_in_image. The image's palette holds 255 colors: past them a color
// takes the nearest one in it. Returns false and leaves `g` as it was when
// the boxes have thousands of distinct colors or the image would exceed
// kMaxRasterCells.
bool rasterize_boxes(TimelineGeometry& g, const RasterExtent& extent);

// Paints the message lines of `g` into g.image.line_cover after
// rasterize_boxes succeeded with the same extent: each line as the line
// shader draws it (a quad of half width `half_width` + 1 px between the
// centers of its rows, coverage falling off over the last pixel, fainter at
// the send end), summed where lines cross. The renderer then draws them as
// one textured quad with the lines' color and density fade.
void rasterize_lines(TimelineGeometry& g, const RasterExtent& extent, float half_width);

// Whether dense windows are to be painted into images with the current GL
// context: on software renderers (GL_RENDERER names llvmpipe, softpipe or
// swrast), unless WEFT_TIMELINE_PATH says "boxes" ("raster": always).
bool raster_dense_windows_for_context();
bool choose_raster_dense(const std::string& gl_renderer, const char* setting);

}  // namespace weft::render
