#include "app/timeline_slider.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "app/class_colors.h"
#include "app/overlay_style.h"
#include "time_ticks.h"

namespace weft::app {


TimelineSlider::TimelineSlider(double trace_end_ns, std::optional<db::StartHistogram> histogram)
    : trace_end_ns_(std::max(trace_end_ns, 1.0)), histogram_(std::move(histogram)) {}

void TimelineSlider::set_current_ns(double t_ns) {
  current_ns_ = std::clamp(t_ns, 0.0, trace_end_ns_);
}

bool TimelineSlider::draw(const render::PixelRect& area, double view_t0_ns, double view_t1_ns,
                          bool interactive) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  const LegendLayout legend = legend_layout(area);
  const float legend_width = static_cast<float>(legend.columns) * legend.column_width + kMargin;
  // The plot lines up with nothing else on purpose: it always spans the whole
  // run.
  render::PixelRect plot{area.x + kMargin + ImGui::CalcTextSize("starts").x + kMargin,
                         area.y + kMargin, 0,
                         std::max(area.height - 2 * kMargin - line - 4.0f, 8.0f)};
  plot.width = std::max(area.x + area.width - legend_width - plot.x, 8.0f);
  draw->AddRectFilled(ImVec2(area.x, area.y), ImVec2(area.x + area.width, area.y + area.height),
                      IM_COL32(28, 28, 33, 255));
  draw->AddText(ImVec2(area.x + kMargin, plot.y), kDimTextColor, "starts");
  auto x_of = [&](double t) { return plot.x + static_cast<float>(t / trace_end_ns_) * plot.width; };

  // The physical view's span, behind the graph (none given: nothing marked).
  if (view_t1_ns > view_t0_ns)
    draw->AddRectFilled(
        ImVec2(std::max(x_of(view_t0_ns), plot.x), plot.y),
        ImVec2(std::min(x_of(view_t1_ns), plot.x + plot.width), plot.y + plot.height),
        IM_COL32(255, 255, 255, 22));
  draw_graph(plot);
  draw->AddLine(ImVec2(plot.x, plot.y + plot.height),
                ImVec2(plot.x + plot.width, plot.y + plot.height), kAxisColor);
  // End labels: the run starts at 0 and ends at its length.
  draw->AddText(ImVec2(plot.x, plot.y + plot.height + 2.0f), kDimTextColor, "0");
  std::string end = render::format_duration(trace_end_ns_);
  draw->AddText(
      ImVec2(plot.x + plot.width - ImGui::CalcTextSize(end.c_str()).x, plot.y + plot.height + 2.0f),
      kDimTextColor, end.c_str());
  draw_legend(area, legend, plot.x + plot.width + kMargin);

  bool changed = false;
  if (interactive) {
    const ImGuiIO& io = ImGui::GetIO();
    const ImVec2 press = io.MouseClickedPos[0];
    const bool in_plot =
        plot.contains(press.x, press.y) || plot.contains(io.MousePos.x, io.MousePos.y);
    if (ImGui::IsMouseDown(ImGuiMouseButton_Left) && in_plot && plot.contains(press.x, press.y)) {
      double t = (io.MousePos.x - plot.x) / plot.width * trace_end_ns_;
      double before = current_ns_;
      set_current_ns(t);
      changed = current_ns_ != before;
    }
  }
  if (!cursor_visible_) return changed;
  // The cursor with its time.
  const float cx = x_of(current_ns_);
  draw->AddLine(ImVec2(cx, plot.y - 2.0f), ImVec2(cx, plot.y + plot.height + 2.0f), kCursorColor,
                2.0f);
  std::string now = render::format_duration(current_ns_);
  float width = ImGui::CalcTextSize(now.c_str()).x;
  float lx = std::clamp(cx - 0.5f * width, plot.x + 2.0f * line,
                        plot.x + plot.width - width - 4.0f * line);
  draw->AddText(ImVec2(lx, plot.y + plot.height + 2.0f), kTextColor, now.c_str());
  return changed;
}

void TimelineSlider::draw_graph(const render::PixelRect& plot) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  if (!histogram_ || histogram_->max_stacked == 0) {
    draw->AddText(
        ImVec2(plot.x + kMargin, plot.y + 0.5f * (plot.height - ImGui::GetTextLineHeight())),
        kDimTextColor, "no start histogram: run `weft analyze` to add one");
    return;
  }
  const db::StartHistogram& h = *histogram_;
  // One column per pixel: the largest stacked count of the bins under it, so
  // a busy moment never disappears between pixels.
  const int columns = std::max(1, static_cast<int>(plot.width));
  std::array<std::int64_t, db::kStartClasses> column{};
  for (int px = 0; px < columns; ++px) {
    const double t0 = static_cast<double>(px) / columns * trace_end_ns_;
    const double t1 = static_cast<double>(px + 1) / columns * trace_end_ns_;
    auto b0 = static_cast<std::int32_t>(t0 / static_cast<double>(h.bin_ns));
    auto b1 =
        std::max(b0, static_cast<std::int32_t>(std::ceil(t1 / static_cast<double>(h.bin_ns))) - 1);
    b1 = std::min(b1, h.bins - 1);
    std::int64_t best_total = -1;
    for (std::int32_t b = std::max(b0, 0); b <= b1; ++b) {
      std::int64_t total = 0;
      for (const auto& c : h.counts) total += c[static_cast<std::size_t>(b)];
      if (total > best_total) {
        best_total = total;
        for (int c = 0; c < db::kStartClasses; ++c)
          column[static_cast<std::size_t>(c)] =
              h.counts[static_cast<std::size_t>(c)][static_cast<std::size_t>(b)];
      }
    }
    if (best_total <= 0) continue;
    float y = plot.y + plot.height;
    const float x = plot.x + static_cast<float>(px);
    for (int c = 0; c < db::kStartClasses; ++c) {
      float height = static_cast<float>(column[static_cast<std::size_t>(c)]) /
                     static_cast<float>(h.max_stacked) * plot.height;
      if (height <= 0) continue;
      draw->AddRectFilled(ImVec2(x, y - height), ImVec2(x + 1.0f, y),
                          im_color(class_color(static_cast<db::StartClass>(c))));
      y -= height;
    }
  }
}

// One column per `rows` classes: as many rows as fit the slider's height.
TimelineSlider::LegendLayout TimelineSlider::legend_layout(const render::PixelRect& area) {
  const float line = ImGui::GetTextLineHeight();
  LegendLayout l;
  l.rows = std::clamp(static_cast<int>((area.height - kMargin) / line), 1, db::kStartClasses);
  l.columns = (db::kStartClasses + l.rows - 1) / l.rows;
  l.swatch = line - 6.0f;
  l.column_width = ImGui::CalcTextSize("other MPI").x + l.swatch + 12.0f;
  return l;
}

void TimelineSlider::draw_legend(const render::PixelRect& area, const LegendLayout& l, float x) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  for (int c = 0; c < db::kStartClasses; ++c) {
    // Top of the stack first, as the graph reads.
    const int k = db::kStartClasses - 1 - c;
    float y = area.y + 0.5f * kMargin + static_cast<float>(c % l.rows) * line;
    float cx = x + static_cast<float>(c / l.rows) * l.column_width;
    draw->AddRectFilled(ImVec2(cx, y + 3.0f), ImVec2(cx + l.swatch, y + 3.0f + l.swatch),
                        im_color(class_color(static_cast<db::StartClass>(k))));
    draw->AddText(ImVec2(cx + l.swatch + 4.0f, y), kTextColor,
                  db::start_class_name(static_cast<db::StartClass>(k)));
  }
}

}  // namespace weft::app
