#include "timeline_geometry.h"

#include <algorithm>

#include "store/window_query.h"

namespace weft::render {

void TimelineGeometry::clear() {
  box_span.clear();
  box_row.clear();
  box_color.clear();
  box_height.clear();
  box_event.clear();
  line_time.clear();
  line_row.clear();
}

void build_timeline_geometry(const db::WindowEvents& events, const db::WindowMessages& messages,
                             const std::vector<Rgba8>& colors, Rgba8 unknown_color,
                             TimeNs origin_ns, ProcessIndex first_row, TimelineGeometry& out) {
  out.clear();
  out.origin_ns = origin_ns;
  const std::size_t n = events.size();

  // Counting sort by depth: a nested call must be drawn after its caller, and
  // depths are small integers, so this is one linear pass and no comparisons.
  std::int32_t max_depth = 0;
  for (std::int32_t d : events.depth) max_depth = std::max(max_depth, d);
  auto& start = out.depth_scratch;
  start.assign(static_cast<std::size_t>(max_depth) + 2, 0);
  for (std::int32_t d : events.depth) ++start[static_cast<std::size_t>(std::max(d, 0)) + 1];
  for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];

  out.box_span.resize(2 * n);
  out.box_row.resize(2 * n);
  out.box_color.resize(n);
  out.box_event.resize(n);
  out.box_height.assign(n, 1.0f);
  for (std::size_t i = 0; i < n; ++i) {
    std::int32_t depth = std::max(events.depth[i], 0);
    std::size_t slot = start[static_cast<std::size_t>(depth)]++;
    out.box_span[2 * slot] = static_cast<float>(events.start_ns[i] - origin_ns);
    out.box_span[2 * slot + 1] = static_cast<float>(events.end_ns[i] - origin_ns);
    out.box_row[2 * slot] = static_cast<float>(events.process[i] - first_row);
    out.box_row[2 * slot + 1] = static_cast<float>(depth);
    std::int32_t region = events.region[i];
    out.box_color[slot] = region >= 0 && static_cast<std::size_t>(region) < colors.size()
                              ? colors[static_cast<std::size_t>(region)]
                              : unknown_color;
    out.box_event[slot] = static_cast<std::uint32_t>(i);
  }

  const std::size_t m = messages.size();
  out.line_time.resize(2 * m);
  out.line_row.resize(2 * m);
  for (std::size_t i = 0; i < m; ++i) {
    out.line_time[2 * i] = static_cast<float>(messages.send_ns[i] - origin_ns);
    out.line_time[2 * i + 1] = static_cast<float>(messages.recv_ns[i] - origin_ns);
    out.line_row[2 * i] = static_cast<float>(messages.src[i] - first_row);
    out.line_row[2 * i + 1] = static_cast<float>(messages.dst[i] - first_row);
  }
}

}  // namespace weft::render
