#include "timeline_raster.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include "gl_api.h"

namespace weft::render {
namespace {

// Palette indices of the boxes' colors: 1..255 in order of first use. Past
// 255 distinct colors (a continuous metric color map over many values) a new
// color takes the nearest one already in the palette: at most 1/255 of the
// map off, like the level of detail's quantized metrics.
class ColorIndex {
 public:
  // 0 when the table of colors seen is full.
  std::uint8_t of(Rgba8 color) {
    std::size_t slot = (color * 2654435761u) % slots_.size();
    while (slots_[slot].used) {
      if (slots_[slot].color == color) return slots_[slot].index;
      slot = (slot + 1) % slots_.size();
    }
    if (seen_ + 1 >= slots_.size() / 2) return 0;  // keep probes short
    std::uint8_t index = 0;
    if (count_ < 255) {
      index = static_cast<std::uint8_t>(++count_);
      palette[index] = color;
    } else {
      index = nearest(color);
    }
    slots_[slot] = {color, index, true};
    ++seen_;
    return index;
  }
  std::array<Rgba8, 256> palette{};

 private:
  std::uint8_t nearest(Rgba8 color) const {
    int best = 1, best_d = 1 << 30;
    for (int k = 1; k <= count_; ++k) {
      int d = 0;
      for (int shift = 0; shift < 24; shift += 8)
        d += std::abs(static_cast<int>((color >> shift) & 0xff) - static_cast<int>((palette[static_cast<std::size_t>(k)] >> shift) & 0xff));
      if (d < best_d) best = k, best_d = d;
    }
    return static_cast<std::uint8_t>(best);
  }
  struct Slot {
    Rgba8 color = 0;
    std::uint8_t index = 0;
    bool used = false;
  };
  std::array<Slot, 8192> slots_{};
  std::size_t seen_ = 0;
  int count_ = 0;
};

// The pixels whose centers lie in [lo, hi) (at least the one nearest lo),
// clipped to [0, size).
std::pair<std::int64_t, std::int64_t> covered(double lo, double hi, std::int64_t size) {
  hi = std::max(hi, lo + 1.0);
  const auto first = static_cast<std::int64_t>(std::ceil(lo - 0.5));
  const auto end = static_cast<std::int64_t>(std::ceil(hi - 0.5));
  return {std::max<std::int64_t>(first, 0), std::min(end, size)};
}

}  // namespace

bool rasterize_boxes(TimelineGeometry& g, const RasterExtent& e) {
  if (!(e.px_per_x > 0) || !(e.px_per_row > 0) || !(e.x1 > e.x0) || !(e.row1 > e.row0)) return false;
  const double width = std::ceil((e.x1 - e.x0) * e.px_per_x + e.x_phase);
  const double height = std::ceil((e.row1 - e.row0) * e.px_per_row + e.y_phase);
  if (width * height > static_cast<double>(kMaxRasterCells)) return false;
  const auto columns = static_cast<std::int64_t>(width), rows = static_cast<std::int64_t>(height);

  CellImage& image = g.image;
  image.width = static_cast<int>(columns);
  image.height = static_cast<int>(rows);
  image.x0 = e.x0 - e.x_phase / e.px_per_x;
  image.dx = 1.0 / e.px_per_x;
  image.row0 = e.row0 - e.y_phase / e.px_per_row;
  image.drow = 1.0 / e.px_per_row;
  image.cells.assign(static_cast<std::size_t>(columns * rows), 0);
  // The box shader's sizes at this zoom (timeline_renderer.cpp, draw_boxes).
  const double row_px = e.px_per_row;
  const double row_gap = row_px >= 6.0 ? std::min(row_px * 0.12, 4.0) : 0.0;
  const double depth_inset = std::min(row_px * 0.1, 4.0);
  ColorIndex colors;
  for (std::size_t i = 0; i < g.box_count(); ++i) {
    const double x0 = (g.box_span[2 * i] - e.x0) * e.px_per_x + e.x_phase;
    const double x1 = std::max((g.box_span[2 * i + 1] - e.x0) * e.px_per_x + e.x_phase, x0 + 1.0);
    const double top = (g.box_row[2 * i] - e.row0) * row_px + e.y_phase;
    const double box_height = std::max(g.box_height[i] * row_px - row_gap, 1.0);
    const double inset = std::max(std::min(g.box_row[2 * i + 1] * depth_inset, 0.5 * box_height - 1.0), 0.0);
    const double y0 = top + inset, y1 = std::max(top + box_height - inset, y0 + 1.0);
    const std::uint8_t index = colors.of(g.box_color[i]);
    // A darker 1 px edge on boxes of at least 6 x 6 px, as timeline_box.frag draws.
    const bool outlined = x1 - x0 >= 6.0 && y1 - y0 >= 6.0;
    const Rgba8 fill = g.box_color[i];
    const std::uint8_t edge = outlined ? colors.of(rgba8(static_cast<std::uint8_t>((fill & 0xff) * 0.55f),
                                                         static_cast<std::uint8_t>(((fill >> 8) & 0xff) * 0.55f),
                                                         static_cast<std::uint8_t>(((fill >> 16) & 0xff) * 0.55f),
                                                         static_cast<std::uint8_t>(fill >> 24)))
                                       : index;
    if (index == 0 || edge == 0) {  // thousands of colors: keep drawing boxes
      image.clear();
      return false;
    }
    const auto [c0, c1] = covered(x0, x1, columns);
    const auto [r0, r1] = covered(y0, y1, rows);
    for (std::int64_t r = r0; r < r1; ++r) {
      std::uint8_t* row = image.cells.data() + r * columns;
      const double cy = static_cast<double>(r) + 0.5;
      if (outlined && (cy - y0 < 1.0 || y1 - cy < 1.0)) {
        std::fill(row + c0, row + std::max(c0, c1), edge);
        continue;
      }
      std::fill(row + c0, row + std::max(c0, c1), index);
      if (outlined && c1 > c0) {
        for (std::int64_t c = c0; c < c1 && static_cast<double>(c) + 0.5 - x0 < 1.0; ++c) row[c] = edge;
        for (std::int64_t c = c1 - 1; c >= c0 && x1 - (static_cast<double>(c) + 0.5) < 1.0; --c) row[c] = edge;
      }
    }
  }
  image.palette = colors.palette;
  g.boxes_in_image = true;
  return true;
}

void rasterize_lines(TimelineGeometry& g, const RasterExtent& e, float half_width) {
  CellImage& image = g.image;
  if (!g.boxes_in_image || image.empty()) return;
  const std::int64_t columns = image.width, rows = image.height;
  image.line_cover.assign(static_cast<std::size_t>(columns * rows), 0);
  const double edge = half_width + 0.5;  // coverage = edge - |across|, as in message_line.frag
  for (std::size_t i = 0; i < g.line_count(); ++i) {
    // The ends: centers of the two rows, in image pixels.
    const double ax = (g.line_time[2 * i] - e.x0) * e.px_per_x + e.x_phase;
    const double bx = (g.line_time[2 * i + 1] - e.x0) * e.px_per_x + e.x_phase;
    const double ay = (g.line_row[2 * i] + 0.5 - e.row0) * e.px_per_row + e.y_phase;
    const double by = (g.line_row[2 * i + 1] + 0.5 - e.row0) * e.px_per_row + e.y_phase;
    const double dx = bx - ax, dy = by - ay;
    const double length = std::hypot(dx, dy);
    if (length < 1e-3) continue;  // the shader's quad has no area either
    // For a pixel center c: along = (c - a)·d / |d|², in [0, 1] inside the
    // quad (it has no end caps), and across = (c - a)·n, n the unit normal.
    // Walking the longer axis ("major") a pixel at a time, the pixels of a
    // column (or row) that the line covers are a range of the other axis,
    // and along and across change by constants from one to the next.
    const bool wide = std::abs(dx) >= std::abs(dy);
    const double a_major = wide ? ax : ay, a_minor = wide ? ay : ax;
    const double along_major = (wide ? dx : dy) / (length * length), along_minor = (wide ? dy : dx) / (length * length);
    const double normal_major = (wide ? -dy : dx) / length, normal_minor = (wide ? dx : -dy) / length;
    const std::int64_t majors = wide ? columns : rows, minors = wide ? rows : columns;
    const double lo = std::min(wide ? ax : ay, wide ? bx : by), hi = std::max(wide ? ax : ay, wide ? bx : by);
    const auto major_first = std::max<std::int64_t>(static_cast<std::int64_t>(std::floor(lo - edge)), 0);
    const auto major_last = std::min<std::int64_t>(static_cast<std::int64_t>(std::ceil(hi + edge)), majors - 1);
    for (std::int64_t major = major_first; major <= major_last; ++major) {
      const double c_major = static_cast<double>(major) + 0.5 - a_major;
      // Offsets c_minor with |across| < edge (|normal_minor| >= 0.7)...
      double from = (-edge - c_major * normal_major) / normal_minor, to = (edge - c_major * normal_major) / normal_minor;
      if (from > to) std::swap(from, to);
      // ... and 0 <= along <= 1.
      const double along0 = c_major * along_major;
      if (std::abs(along_minor) > 1e-12) {
        double a = -along0 / along_minor, b = (1.0 - along0) / along_minor;
        if (a > b) std::swap(a, b);
        from = std::max(from, a);
        to = std::min(to, b);
      } else if (along0 < 0.0 || along0 > 1.0) {
        continue;
      }
      const auto first = std::max<std::int64_t>(static_cast<std::int64_t>(std::ceil(from - 0.5 + a_minor)), 0);
      const auto last = std::min<std::int64_t>(static_cast<std::int64_t>(std::floor(to - 0.5 + a_minor)), minors - 1);
      double c_minor = static_cast<double>(first) + 0.5 - a_minor;
      double along = along0 + c_minor * along_minor, across = c_major * normal_major + c_minor * normal_minor;
      for (std::int64_t minor = first; minor <= last; ++minor, along += along_minor, across += normal_minor) {
        const double coverage = std::min(edge - std::abs(across), 1.0);
        if (coverage <= 0.0 || along < 0.0 || along > 1.0) continue;  // rounding at the range's ends
        const std::int64_t x = wide ? major : minor, y = wide ? minor : major;
        std::uint16_t& cell = image.line_cover[static_cast<std::size_t>(y * columns + x)];
        cell = static_cast<std::uint16_t>(std::min(65535.0, cell + 256.0 * coverage * (0.35 + 0.65 * along) + 0.5));
      }
    }
  }
}

bool choose_raster_dense(const std::string& gl_renderer, const char* setting) {
  const std::string forced = setting ? setting : "";
  if (forced == "raster") return true;
  if (forced == "boxes") return false;
  for (const char* software : {"llvmpipe", "softpipe", "swrast"})
    if (gl_renderer.find(software) != std::string::npos) return true;
  return false;
}

bool raster_dense_windows_for_context() {
  const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return choose_raster_dense(name ? name : "", std::getenv("WEFT_TIMELINE_PATH"));
}

}  // namespace weft::render
