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

}  // namespace

std::size_t draw_physical_flights(const render::ViewTransform& view, const db::WindowMessages& messages,
                                  const ViewFilter& filter, double t_ns, double max_flight_ns) {
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  draw->PushClipRect(ImVec2(view.plot.x, view.plot.y),
                     ImVec2(view.plot.x + view.plot.width, view.plot.y + view.plot.height));
  std::size_t drawn = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const auto send = static_cast<double>(messages.send_ns[i]);
    const auto recv = static_cast<double>(messages.recv_ns[i]);
    if (t_ns < send || t_ns > recv) continue;
    const std::int32_t src = filter.row(messages.src[i]);
    const std::int32_t dst = filter.row(messages.dst[i]);
    if (src < 0 || dst < 0) continue;
    const double along = recv > send ? (t_ns - send) / (recv - send) : 1.0;
    draw_dot(draw, view, view.x_of(send), view.y_of(src + 0.5), view.x_of(recv), view.y_of(dst + 0.5), along,
             max_flight_ns > 0 ? (recv - send) / max_flight_ns : 0.0);
    ++drawn;
  }
  draw->PopClipRect();
  return drawn;
}

std::size_t draw_logical_flights(const render::ViewTransform& view, const db::StepMessages& messages,
                                 const ViewFilter& filter, double step, double max_steps) {
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  draw->PushClipRect(ImVec2(view.plot.x, view.plot.y),
                     ImVec2(view.plot.x + view.plot.width, view.plot.y + view.plot.height));
  std::size_t drawn = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    // A step's box spans [s, s + 1): the message leaves the middle of its send
    // step and arrives in the middle of its receive step.
    const double send = messages.send_step[i] + 0.5;
    const double recv = messages.recv_step[i] + 0.5;
    if (step < send || step > recv) continue;
    const std::int32_t src = filter.row(messages.src[i]);
    const std::int32_t dst = filter.row(messages.dst[i]);
    if (src < 0 || dst < 0) continue;
    const double along = recv > send ? (step - send) / (recv - send) : 1.0;
    draw_dot(draw, view, view.x_of(send), view.y_of(src + 0.5), view.x_of(recv), view.y_of(dst + 0.5), along,
             max_steps > 0 ? (recv - send) / max_steps : 0.0);
    ++drawn;
  }
  draw->PopClipRect();
  return drawn;
}

}  // namespace weft::app
