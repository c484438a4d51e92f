#pragma once
// What the physical timeline sends to the GPU, built once per loaded window
// (not per frame): one box instance per event and one line instance per
// message, as parallel arrays. Times are float ns relative to `origin_ns`, the
// start of the loaded window, so float precision is spent on what is visible;
// the viewer reloads (and so re-centers) before zooming far into one window.
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "region_palette.h"

namespace weft::db {
struct WindowEvents;
struct WindowMessages;
}  // namespace weft::db

namespace weft::render {

struct TimelineGeometry {
  TimeNs origin_ns = 0;
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

// Fills `out` from a window's events and messages. Row of process p is
// p - first_row. `colors` holds one color per region position (events with no
// known region get `unknown_color`).
void build_timeline_geometry(const db::WindowEvents& events, const db::WindowMessages& messages,
                             const std::vector<Rgba8>& colors, Rgba8 unknown_color,
                             TimeNs origin_ns, ProcessIndex first_row, TimelineGeometry& out);

}  // namespace weft::render
