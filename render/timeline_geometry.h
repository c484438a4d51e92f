#pragma once
// What the physical timeline sends to the GPU, built once per loaded window
// (not per frame): one box instance per event and one line instance per
// message, as parallel arrays. Times are float ns relative to `origin_ns`, the
// start of the loaded window, so float precision is spent on what is visible;
// the viewer reloads (and so re-centers) before zooming far into one window.
#include <array>
#include <cstdint>
#include <vector>

#include "common/huge_page_allocator.h"
#include "common/types.h"
#include "region_palette.h"

namespace weft::db {
struct WindowEvents;
struct WindowMessages;
}  // namespace weft::db

namespace weft::render {

// A grid of equal cells drawn as one textured quad (a level-of-detail
// window): cell (i, j) covers x in [x0 + i·dx, x0 + (i+1)·dx) from the
// geometry origin and rows [row0 + j·drow, row0 + (j+1)·drow) (a last block
// may reach past the last row: views never show rows beyond it). A cell is a
// byte, an index into `palette`, which the shader looks up: a window of a
// few million cells uploads a byte per cell, a quarter of an RGBA image, and
// building it is a table lookup per cell. Index 0 is an empty cell (the row
// bands show through).
struct CellImage {
  int width = 0;
  int height = 0;
  BigVector<std::uint8_t> cells;  // row-major, width × height (huge pages: MBs, refilled per load)
  std::array<Rgba8, 256> palette{};  // palette[0] is never drawn
  // Message lines painted over the cells (timeline_raster.h), or empty: per
  // cell, how much line covers it (the sum of the lines' anti-aliased
  // coverage, 256 a whole line), drawn in the lines' color.
  BigVector<std::uint16_t> line_cover;
  double x0 = 0, dx = 1;
  double row0 = 0, drow = 1;
  bool empty() const { return width == 0 || height == 0; }
  void clear() {
    width = height = 0;
    cells.clear();
    line_cover.clear();
  }
};

struct TimelineGeometry {
  TimeNs origin_ns = 0;
  CellImage image;  // drawn under the boxes
  // The boxes are painted into `image` (timeline_raster.h): they are kept
  // for picking, but not drawn; and so are the lines when image.line_cover
  // is filled.
  bool boxes_in_image = false;
  bool lines_in_image() const { return boxes_in_image && !image.line_cover.empty(); }
  // Boxes, drawn in this order: shallower first so nested calls lie on top.
  std::vector<float> box_span;         // 2 per box: start, end
  std::vector<float> box_row;          // 2 per box: row, depth
  std::vector<Rgba8> box_color;
  std::vector<float> box_height;         // rows the box covers (1, or a level-of-detail block)
  std::vector<std::uint32_t> box_event;  // index of the box's event in the WindowEvents
  // Message lines.
  std::vector<float> line_time;        // 2 per line: send, receive
  std::vector<float> line_row;         // 2 per line: sender row, receiver row

  std::size_t box_count() const { return box_color.size(); }
  std::size_t line_count() const { return line_time.size() / 2; }
  void clear();

  // Scratch for the depth ordering, kept to reuse its capacity.
  std::vector<std::uint32_t> depth_scratch;
};

// Which rows show which processes and which regions are left out. Without
// `row_of_process` process p is row p; a process mapped to -1 has no row.
struct GeometryFilter {
  const std::vector<std::int32_t>* row_of_process = nullptr;
  const std::vector<char>* region_hidden = nullptr;  // by region position
  // By region position: drawn as a thin bar across the row's middle (the
  // idle intervals of a Charm++ run, as Projections draws them).
  const std::vector<char>* region_thin = nullptr;
  bool thin(std::int32_t region) const {
    return region_thin && region >= 0 && static_cast<std::size_t>(region) < region_thin->size() &&
           (*region_thin)[static_cast<std::size_t>(region)];
  }
  std::int32_t row(ProcessIndex p) const {
    if (!row_of_process) return p;
    return p >= 0 && static_cast<std::size_t>(p) < row_of_process->size()
               ? (*row_of_process)[static_cast<std::size_t>(p)]
               : -1;
  }
  bool hidden(std::int32_t region) const {
    return region_hidden && region >= 0 && static_cast<std::size_t>(region) < region_hidden->size() &&
           (*region_hidden)[static_cast<std::size_t>(region)];
  }
};

// Fills `out` from a window's events and messages: one box per event that has
// a row and a shown region, one line per message whose two ends have rows.
// `colors` holds one color per region position (events with no known region
// get `unknown_color`).
void build_timeline_geometry(const db::WindowEvents& events, const db::WindowMessages& messages,
                             const std::vector<Rgba8>& colors, Rgba8 unknown_color,
                             TimeNs origin_ns, const GeometryFilter& filter, TimelineGeometry& out);

}  // namespace weft::render
