#include "timeline_geometry.h"

#include <algorithm>

#include "store/window_query.h"

namespace weft::render {

void TimelineGeometry::clear() {
  image.clear();
  boxes_in_image = false;
  box_span.clear();
  box_row.clear();
  box_color.clear();
  box_height.clear();
  box_event.clear();
  line_time.clear();
  line_row.clear();
}

namespace {
constexpr float kThinBarDepth = 1.0e4f;
}  // namespace

void build_timeline_geometry(const db::WindowEvents& events, const db::WindowMessages& messages,
                             const std::vector<Rgba8>& colors, Rgba8 unknown_color,
                             TimeNs origin_ns, const GeometryFilter& filter, TimelineGeometry& out) {
  out.clear();
  out.origin_ns = origin_ns;
  const std::size_t n = events.size();
  auto kept = [&](std::size_t i) {
    return filter.row(events.process[i]) >= 0 && !filter.hidden(events.region[i]);
  };

  // Counting sort by depth: a nested call must be drawn after its caller, and
  // depths are small integers, so this is one linear pass and no comparisons.
  std::int32_t max_depth = 0;
  for (std::int32_t d : events.depth) max_depth = std::max(max_depth, d);
  auto& start = out.depth_scratch;
  start.assign(static_cast<std::size_t>(max_depth) + 2, 0);
  std::size_t boxes = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (kept(i)) ++start[static_cast<std::size_t>(std::max(events.depth[i], 0)) + 1], ++boxes;
  for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];

  out.box_span.resize(2 * boxes);
  out.box_row.resize(2 * boxes);
  out.box_color.resize(boxes);
  out.box_event.resize(boxes);
  out.box_height.assign(boxes, 1.0f);
  for (std::size_t i = 0; i < n; ++i) {
    if (!kept(i)) continue;
    std::int32_t depth = std::max(events.depth[i], 0);
    std::size_t slot = start[static_cast<std::size_t>(depth)]++;
    out.box_span[2 * slot] = static_cast<float>(events.start_ns[i] - origin_ns);
    out.box_span[2 * slot + 1] = static_cast<float>(events.end_ns[i] - origin_ns);
    out.box_row[2 * slot] = static_cast<float>(filter.row(events.process[i]));
    std::int32_t region = events.region[i];
    // A deep inset: the shader clamps it to a bar 2 px tall in the row's middle.
    out.box_row[2 * slot + 1] = filter.thin(region) ? kThinBarDepth : static_cast<float>(depth);
    out.box_color[slot] = region >= 0 && static_cast<std::size_t>(region) < colors.size()
                              ? colors[static_cast<std::size_t>(region)]
                              : unknown_color;
    out.box_event[slot] = static_cast<std::uint32_t>(i);
  }

  out.line_time.clear();
  out.line_row.clear();
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const std::int32_t src = filter.row(messages.src[i]);
    const std::int32_t dst = filter.row(messages.dst[i]);
    if (src < 0 || dst < 0) continue;
    out.line_time.push_back(static_cast<float>(messages.send_ns[i] - origin_ns));
    out.line_time.push_back(static_cast<float>(messages.recv_ns[i] - origin_ns));
    out.line_row.push_back(static_cast<float>(src));
    out.line_row.push_back(static_cast<float>(dst));
  }
}

}  // namespace weft::render
