#include "app/step_overview.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/overlay_style.h"
#include "metric_colormap.h"
#include "time_ticks.h"

namespace weft::app {

StepOverview::StepOverview(db::Database& db, std::int64_t step_count)
    : step_count_(std::max<std::int64_t>(step_count, 1)) {
  max_lateness_.assign(static_cast<std::size_t>(step_count_), 0);
  max_diff_.assign(static_cast<std::size_t>(step_count_), 0);
  db::Statement s(db, "SELECT step, max_lateness_ns, max_diff_lateness_ns FROM step_metrics");
  while (s.step()) {
    const std::int64_t step = s.column_int(0);
    if (step < 0 || step >= step_count_) continue;
    max_lateness_[static_cast<std::size_t>(step)] = s.column_int(1);
    max_diff_[static_cast<std::size_t>(step)] = s.column_int(2);
  }
  top_lateness_ = *std::max_element(max_lateness_.begin(), max_lateness_.end());
  top_diff_ = *std::max_element(max_diff_.begin(), max_diff_.end());
}

std::optional<std::pair<double, double>> StepOverview::draw(const render::PixelRect& area,
                                                            LogicalColor color, double view_s0,
                                                            double view_s1, bool interactive) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const bool diff = color == LogicalColor::DiffLateness;
  const std::vector<TimeNs>& values = diff ? max_diff_ : max_lateness_;
  const TimeNs top = diff ? top_diff_ : top_lateness_;
  const char* label = diff ? "max diff. lateness per step" : "max lateness per step";
  const float line = ImGui::GetTextLineHeight();

  const render::PixelRect plot{area.x + kMargin, area.y + line + 4.0f,
                               std::max(area.width - 2 * kMargin, 8.0f),
                               std::max(area.height - line - 8.0f, 4.0f)};
  draw->AddText(ImVec2(plot.x, area.y), kDimTextColor, label);
  std::string range = "0 to " + render::format_duration(static_cast<double>(top)) + ", all " +
                      std::to_string(step_count_) + " steps";
  draw->AddText(ImVec2(plot.x + plot.width - ImGui::CalcTextSize(range.c_str()).x, area.y),
                kDimTextColor, range.c_str());
  draw->AddRectFilled(ImVec2(plot.x, plot.y), ImVec2(plot.x + plot.width, plot.y + plot.height),
                      IM_COL32(30, 30, 36, 255));
  auto x_of = [&](double s) {
    return plot.x + static_cast<float>(s / static_cast<double>(step_count_)) * plot.width;
  };

  // One bar per pixel column, the largest value of its steps, in the scale's
  // color.
  const int columns = std::max(1, static_cast<int>(plot.width));
  for (int px = 0; px < columns; ++px) {
    auto s0 = static_cast<std::int64_t>(static_cast<double>(px) / columns *
                                        static_cast<double>(step_count_));
    auto s1 = static_cast<std::int64_t>(static_cast<double>(px + 1) / columns *
                                        static_cast<double>(step_count_));
    s1 = std::clamp<std::int64_t>(s1, s0 + 1, step_count_);
    TimeNs best = 0;
    for (std::int64_t s = s0; s < s1; ++s)
      best = std::max(best, values[static_cast<std::size_t>(s)]);
    if (best <= 0 || top <= 0) continue;
    const float h =
        static_cast<float>(static_cast<double>(best) / static_cast<double>(top)) * plot.height;
    const float x = plot.x + static_cast<float>(px);
    draw->AddRectFilled(
        ImVec2(x, plot.y + plot.height - std::max(h, 1.0f)), ImVec2(x + 1.0f, plot.y + plot.height),
        im_color(render::metric_color(static_cast<double>(best), static_cast<double>(top))));
  }
  // The span the timeline shows (none given: nothing marked).
  if (view_s1 > view_s0) {
    const float v0 = std::max(x_of(view_s0), plot.x);
    const float v1 = std::min(x_of(view_s1), plot.x + plot.width);
    draw->AddRectFilled(ImVec2(v0, plot.y), ImVec2(v1, plot.y + plot.height),
                        IM_COL32(255, 255, 255, 26));
    draw->AddRect(ImVec2(v0, plot.y), ImVec2(v1, plot.y + plot.height),
                  IM_COL32(255, 255, 255, 120));
  }

  if (!interactive) return std::nullopt;
  const ImGuiIO& io = ImGui::GetIO();
  auto step_at = [&](float x) {
    return std::clamp(
        static_cast<double>((x - plot.x) / plot.width) * static_cast<double>(step_count_), 0.0,
        static_cast<double>(step_count_));
  };
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && plot.contains(io.MousePos.x, io.MousePos.y))
    drag_from_ = step_at(io.MousePos.x);
  if (!drag_from_) return std::nullopt;
  const double here = step_at(io.MousePos.x);
  const double a = std::min(*drag_from_, here), b = std::max(*drag_from_, here);
  draw->AddRectFilled(ImVec2(x_of(a), plot.y), ImVec2(x_of(b), plot.y + plot.height),
                      IM_COL32(120, 200, 255, 60));
  if (ImGui::IsMouseDown(ImGuiMouseButton_Left)) return std::nullopt;
  drag_from_.reset();
  // A click (no real drag) shows a few steps around the clicked one.
  if (b - a < 1.0)
    return std::make_pair(std::max(0.0, a - 8.0),
                          std::min(a + 8.0, static_cast<double>(step_count_)));
  return std::make_pair(std::floor(a), std::ceil(b));
}

}  // namespace weft::app
