#include "app/message_flight.h"

#include <imgui.h>

#include <algorithm>

namespace weft::app {

namespace {

// A dot at share `along` of the line (x0, y0) → (x1, y1); `late` in [0, 1]
// sets the size and brightness of its halo.
void draw_dot(ImDrawList* draw, const render::ViewTransform& view, double x0, double y0, double x1, double y1,
              double along, double late) {
  const auto x = static_cast<float>(x0 + (x1 - x0) * along);
  const auto y = static_cast<float>(y0 + (y1 - y0) * along);
  if (!view.plot.contains(x, y)) return;
  const float glow = static_cast<float>(std::clamp(late, 0.0, 1.0));
  draw->AddCircleFilled(ImVec2(x, y), 3.0f + 6.0f * glow,
                        IM_COL32(255, static_cast<int>(200 - 120 * glow), 60, static_cast<int>(40 + 90 * glow)));
  draw->AddCircleFilled(ImVec2(x, y), 2.5f, IM_COL32(255, 245, 220, 255));
}

// The dots of `count` messages: `line(i, x0, y0, x1, y1, late)` gives message
// i's send and receive points in the plot's coordinates (ns or steps, rows)
// and its lateness share, or false when it is not in flight at `at`.
template <class Line>
std::size_t draw_flights(const render::ViewTransform& view, std::size_t count, double at, Line line) {
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  draw->PushClipRect(ImVec2(view.plot.x, view.plot.y),
                     ImVec2(view.plot.x + view.plot.width, view.plot.y + view.plot.height));
  std::size_t drawn = 0;
  double x0 = 0, r0 = 0, x1 = 0, r1 = 0, late = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (!line(i, x0, r0, x1, r1, late) || at < x0 || at > x1) continue;
    const double along = x1 > x0 ? (at - x0) / (x1 - x0) : 1.0;
    draw_dot(draw, view, view.x_of(x0), view.y_of(r0 + 0.5), view.x_of(x1), view.y_of(r1 + 0.5), along, late);
    ++drawn;
  }
  draw->PopClipRect();
  return drawn;
}

// A receive's lateness as a share of the run's largest.
double lateness_share(TimeNs lateness, double max_lateness_ns) {
  return max_lateness_ns > 0 ? static_cast<double>(lateness) / max_lateness_ns : 0.0;
}

}  // namespace

std::size_t draw_physical_flights(const render::ViewTransform& view, const db::WindowMessages& messages,
                                  const ViewFilter& filter, double t_ns,
                                  const std::unordered_map<std::int64_t, TimeNs>* recv_lateness,
                                  double max_lateness_ns) {
  return draw_flights(view, messages.size(), t_ns,
                      [&](std::size_t i, double& x0, double& r0, double& x1, double& r1, double& late) {
                        r0 = filter.row(messages.src[i]);
                        r1 = filter.row(messages.dst[i]);
                        x0 = static_cast<double>(messages.send_ns[i]);
                        x1 = static_cast<double>(messages.recv_ns[i]);
                        late = 0.0;
                        if (recv_lateness && t_ns >= x0 && t_ns <= x1) {  // look up only what flies
                          auto it = recv_lateness->find(messages.id[i]);
                          if (it != recv_lateness->end()) late = lateness_share(it->second, max_lateness_ns);
                        }
                        return r0 >= 0 && r1 >= 0;
                      });
}

std::size_t draw_logical_flights(const render::ViewTransform& view, const db::StepMessages& messages,
                                 const std::vector<TimeNs>& recv_lateness, const ViewFilter& filter, double step,
                                 double max_lateness_ns) {
  // A step's box spans [s, s + 1): a message leaves the middle of its send
  // step and arrives in the middle of its receive step.
  return draw_flights(view, messages.size(), step,
                      [&](std::size_t i, double& x0, double& r0, double& x1, double& r1, double& late) {
                        r0 = filter.row(messages.src[i]);
                        r1 = filter.row(messages.dst[i]);
                        x0 = messages.send_step[i] + 0.5;
                        x1 = messages.recv_step[i] + 0.5;
                        late = i < recv_lateness.size() ? lateness_share(recv_lateness[i], max_lateness_ns) : 0.0;
                        return r0 >= 0 && r1 >= 0;
                      });
}

}  // namespace weft::app
