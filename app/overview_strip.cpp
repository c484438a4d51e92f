#include "app/overview_strip.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/overlay_style.h"
#include "metric_colormap.h"
#include "structure/time_metrics.h"
#include "time_ticks.h"

namespace weft::app {

namespace {

TimeNs top_of(const std::vector<TimeNs>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

OverviewSeries make_series(std::vector<TimeNs> values, std::string label) {
  OverviewSeries s;
  s.top = top_of(values);
  s.values = std::move(values);
  s.label = std::move(label);
  return s;
}

}  // namespace

OverviewStrip::OverviewStrip(double axis_end, double bin_width, double click_half_width, bool whole_units,
                             std::string extent_text, std::array<OverviewSeries, kMetrics> series)
    : axis_end_(std::max(axis_end, 1e-9)),
      bin_width_(std::max(bin_width, 1e-9)),
      click_half_width_(click_half_width),
      whole_units_(whole_units),
      extent_text_(std::move(extent_text)),
      series_(std::move(series)) {}

const OverviewSeries& OverviewStrip::series_for(LogicalColor color) const {
  switch (color) {
    case LogicalColor::DiffLateness: return series_[kDiffLateness];
    case LogicalColor::GlobalLateness: return series_[kGlobalLateness];
    default: return series_[kLateness];
  }
}

std::optional<std::pair<double, double>> OverviewStrip::draw(const render::PixelRect& area, LogicalColor color,
                                                             double view0, double view1, bool interactive) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const OverviewSeries& series = series_for(color);
  const float line = ImGui::GetTextLineHeight();

  const render::PixelRect plot{area.x + kMargin, area.y + line + 4.0f,
                               std::max(area.width - 2 * kMargin, 8.0f),
                               std::max(area.height - line - 8.0f, 4.0f)};
  draw->AddText(ImVec2(plot.x, area.y), kDimTextColor, series.label.c_str());
  std::string range = "0 to " + render::format_duration(static_cast<double>(series.top)) + ", " + extent_text_;
  draw->AddText(ImVec2(plot.x + plot.width - ImGui::CalcTextSize(range.c_str()).x, area.y),
                kDimTextColor, range.c_str());
  draw->AddRectFilled(ImVec2(plot.x, plot.y), ImVec2(plot.x + plot.width, plot.y + plot.height),
                      IM_COL32(30, 30, 36, 255));
  auto x_of = [&](double a) { return plot.x + static_cast<float>(a / axis_end_) * plot.width; };

  // One bar per pixel column: the largest value of the bins it covers, in the
  // scale's color.
  const auto bins = static_cast<std::int64_t>(series.values.size());
  const int columns = std::max(1, static_cast<int>(plot.width));
  for (int px = 0; px < columns && bins > 0 && series.top > 0; ++px) {
    const double a0 = static_cast<double>(px) / columns * axis_end_;
    const double a1 = static_cast<double>(px + 1) / columns * axis_end_;
    const auto b0 = std::clamp<std::int64_t>(static_cast<std::int64_t>(a0 / bin_width_), 0, bins - 1);
    const auto b1 = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(a1 / bin_width_)), b0 + 1, bins);
    TimeNs best = 0;
    for (std::int64_t b = b0; b < b1; ++b) best = std::max(best, series.values[static_cast<std::size_t>(b)]);
    if (best <= 0) continue;
    const float h = static_cast<float>(static_cast<double>(best) / static_cast<double>(series.top)) * plot.height;
    const float x = plot.x + static_cast<float>(px);
    draw->AddRectFilled(
        ImVec2(x, plot.y + plot.height - std::max(h, 1.0f)), ImVec2(x + 1.0f, plot.y + plot.height),
        im_color(render::metric_color(static_cast<double>(best), static_cast<double>(series.top))));
  }
  // The span the timeline shows (none given: nothing marked).
  if (view1 > view0) {
    const float v0 = std::max(x_of(view0), plot.x);
    const float v1 = std::min(x_of(view1), plot.x + plot.width);
    draw->AddRectFilled(ImVec2(v0, plot.y), ImVec2(v1, plot.y + plot.height), IM_COL32(255, 255, 255, 26));
    draw->AddRect(ImVec2(v0, plot.y), ImVec2(v1, plot.y + plot.height), IM_COL32(255, 255, 255, 120));
  }

  if (!interactive) return std::nullopt;
  const ImGuiIO& io = ImGui::GetIO();
  auto axis_at = [&](float x) {
    return std::clamp(static_cast<double>((x - plot.x) / plot.width) * axis_end_, 0.0, axis_end_);
  };
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && plot.contains(io.MousePos.x, io.MousePos.y))
    drag_from_ = axis_at(io.MousePos.x);
  if (!drag_from_) return std::nullopt;
  const double here = axis_at(io.MousePos.x);
  const double a = std::min(*drag_from_, here), b = std::max(*drag_from_, here);
  draw->AddRectFilled(ImVec2(x_of(a), plot.y), ImVec2(x_of(b), plot.y + plot.height), IM_COL32(120, 200, 255, 60));
  if (ImGui::IsMouseDown(ImGuiMouseButton_Left)) return std::nullopt;
  drag_from_.reset();
  // A click (less than a pixel of drag) shows a little around the clicked spot.
  if ((b - a) / axis_end_ * plot.width < 1.0)
    return std::make_pair(std::max(0.0, a - click_half_width_), std::min(a + click_half_width_, axis_end_));
  if (whole_units_) return std::make_pair(std::floor(a), std::ceil(b));
  return std::make_pair(a, b);
}

namespace {

// "max lateness per step", or for a task run "max idle experienced per step".
std::string series_name(LogicalColor color, bool task, const std::string& per) {
  return std::string("max ") + logical_color_title(color, task) + " per " + per;
}

}  // namespace

OverviewStrip read_step_overview(db::Database& db, std::int64_t step_count, bool task) {
  step_count = std::max<std::int64_t>(step_count, 1);
  std::vector<TimeNs> late(static_cast<std::size_t>(step_count), 0);
  std::vector<TimeNs> diff(static_cast<std::size_t>(step_count), 0);
  db::Statement s(db, "SELECT step, max_lateness_ns, max_diff_lateness_ns FROM step_metrics");
  while (s.step()) {
    const std::int64_t step = s.column_int(0);
    if (step < 0 || step >= step_count) continue;
    late[static_cast<std::size_t>(step)] = s.column_int(1);
    diff[static_cast<std::size_t>(step)] = s.column_int(2);
  }
  OverviewSeries global = make_series(late, series_name(LogicalColor::Lateness, task, "step"));
  return OverviewStrip(static_cast<double>(step_count), 1.0, 8.0, true,
                       "all " + std::to_string(step_count) + " steps",
                       {make_series(std::move(late), series_name(LogicalColor::Lateness, task, "step")),
                        make_series(std::move(diff), series_name(LogicalColor::DiffLateness, task, "step")),
                        std::move(global)});
}

OverviewStrip read_time_overview(db::Database& db, TimeNs trace_end_ns, bool task) {
  db::TimeMetrics m = db::read_time_metrics(db);
  const auto end = static_cast<double>(std::max<TimeNs>(trace_end_ns, 1));
  const std::string unit = render::format_duration(static_cast<double>(m.bin_ns));
  return OverviewStrip(end, static_cast<double>(m.bin_ns), 0.01 * end, false,
                       "whole run, " + render::format_duration(end),
                       {make_series(std::move(m.values[db::kTimeLateness]),
                                    series_name(LogicalColor::Lateness, task, unit + " bin")),
                        make_series(std::move(m.values[db::kTimeDiffLateness]),
                                    series_name(LogicalColor::DiffLateness, task, unit + " bin")),
                        make_series(std::move(m.values[db::kTimeGlobalLateness]),
                                    series_name(LogicalColor::GlobalLateness, task, unit + " bin"))});
}

}  // namespace weft::app
