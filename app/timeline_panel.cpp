#include "app/timeline_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/overlay_style.h"

namespace weft::app {

namespace {

constexpr double kMinSpanNs = 20.0;   // deeper zoom shows nothing the clock can resolve
constexpr double kMinSpanSteps = 1.0;  // one step fills the plot

// Zooms [a, b] by `factor` keeping `pivot` at the same screen position.
void zoom_about(double& a, double& b, double pivot, double factor) {
  a = pivot + (a - pivot) * factor;
  b = pivot + (b - pivot) * factor;
}

}  // namespace

std::string thousands(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

const std::string& fit_text(const std::string& text, float width, std::string& scratch) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  std::size_t keep = text.size();
  do {
    --keep;
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
    scratch.assign(text, 0, keep);
    scratch += "...";
  } while (keep > 0 && ImGui::CalcTextSize(scratch.c_str()).x > width);
  return scratch;
}

TimelinePanel::TimelinePanel(const TraceInfo& info, TimelineAxis axis, double x_end)
    : info_(info), axis_(axis), x_end_(std::max(x_end, 1.0)) {
  fit();
}

void TimelinePanel::fit() {
  viewport_.t0_ns = 0;
  viewport_.t1_ns = x_end_;
  viewport_.row0 = 0;
  viewport_.row1 = static_cast<double>(std::max<std::size_t>(row_count(), 1));
}

void TimelinePanel::set_viewport(const TimelineViewport& viewport) {
  viewport_ = viewport;
  clamp_viewport();
}

void TimelinePanel::clamp_viewport() {
  // Allow a little empty space around the trace, never more than one trace
  // span of zoom-out, and never a span the clock cannot resolve.
  const double end = x_end_;
  const double min_span = std::min(axis_ == TimelineAxis::Time ? kMinSpanNs : kMinSpanSteps, end);
  double span = std::clamp(viewport_.t1_ns - viewport_.t0_ns, min_span, end * 1.2);
  double t0 = std::clamp(viewport_.t0_ns, -0.1 * end, std::max(-0.1 * end, 1.1 * end - span));
  viewport_.t0_ns = t0;
  viewport_.t1_ns = t0 + span;

  const double rows = static_cast<double>(std::max<std::size_t>(row_count(), 1));
  double row_span = std::clamp(viewport_.row1 - viewport_.row0, std::min(1.0, rows), rows);
  double row0 = std::clamp(viewport_.row0, 0.0, rows - row_span);
  viewport_.row0 = row0;
  viewport_.row1 = row0 + row_span;
}

void TimelinePanel::measure_labels() {
  // Measured once: a trace with 16K processes must not measure 16K names a frame.
  name_width_ = 0;
  for (const std::string& name : labels_.empty() ? info_.processes.name : labels_)
    name_width_ = std::max(name_width_, ImGui::CalcTextSize(name.c_str()).x);
  measured_ = true;
}

render::ViewTransform TimelinePanel::layout(const render::PixelRect& area, int framebuffer_width,
                                            int framebuffer_height, float legend_px) {
  if (!measured_) measure_labels();
  area_ = area;
  const float line = ImGui::GetTextLineHeight();

  float gutter = std::min(name_width_, 0.25f * area.width) + 2 * kMargin;
  float legend = std::min(legend_px, 0.25f * area.width) + 2 * kMargin;
  float top = kMargin + line + kMargin;
  // Ticks, tick labels, the axis title and a margin below the plot.
  float bottom = kTickLength + 4.0f + line + 4.0f + line + kMargin;

  render::ViewTransform view;
  view.framebuffer_width = framebuffer_width;
  view.framebuffer_height = framebuffer_height;
  view.plot = {area.x + gutter, area.y + top, std::max(area.width - gutter - legend, 1.0f),
               std::max(area.height - top - bottom, 1.0f)};
  legend_rect_ = {view.plot.x + view.plot.width + kMargin, view.plot.y, legend - 2 * kMargin,
                  view.plot.height};
  view.t0_ns = viewport_.t0_ns;
  view.t1_ns = viewport_.t1_ns;
  view.row0 = viewport_.row0;
  view.row1 = viewport_.row1;
  return view;
}

bool TimelinePanel::handle_input(const render::ViewTransform& view) {
  ImGuiIO& io = ImGui::GetIO();
  const bool mouse_in_plot = view.plot.contains(io.MousePos.x, io.MousePos.y);
  TimelineViewport next = viewport_;
  const double span = next.t1_ns - next.t0_ns;

  if (mouse_in_plot && io.MouseWheel != 0.0f) {
    double factor = std::pow(0.85, static_cast<double>(io.MouseWheel));
    if (io.KeyCtrl || io.KeyShift)
      zoom_about(next.row0, next.row1, view.row_at(io.MousePos.y), factor);
    else
      zoom_about(next.t0_ns, next.t1_ns, view.time_at(io.MousePos.x), factor);
  }
  const ImVec2 press = io.MouseClickedPos[0];
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f) && view.plot.contains(press.x, press.y)) {
    double dt = -io.MouseDelta.x / view.px_per_ns();
    double drow = -io.MouseDelta.y / view.px_per_row();
    next.t0_ns += dt;
    next.t1_ns += dt;
    next.row0 += drow;
    next.row1 += drow;
  }
  // Letter keys: the GLFW backend (ImGui 1.86) indexes KeysDown by GLFW key
  // code, and GLFW codes of letters are their upper-case ASCII values.
  const double center = 0.5 * (next.t0_ns + next.t1_ns);
  if (ImGui::IsKeyPressed('W')) zoom_about(next.t0_ns, next.t1_ns, center, 0.8);
  if (ImGui::IsKeyPressed('S')) zoom_about(next.t0_ns, next.t1_ns, center, 1.25);
  if (ImGui::IsKeyPressed('A')) next.t0_ns -= 0.15 * span, next.t1_ns -= 0.15 * span;
  if (ImGui::IsKeyPressed('D')) next.t0_ns += 0.15 * span, next.t1_ns += 0.15 * span;
  const TimelineViewport before = viewport_;
  viewport_ = next;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home))) fit();
  clamp_viewport();
  return before.t0_ns != viewport_.t0_ns || before.t1_ns != viewport_.t1_ns ||
         before.row0 != viewport_.row0 || before.row1 != viewport_.row1;
}

void TimelinePanel::draw_frame(const render::ViewTransform& view) {
  draw_title(view);
  draw_process_names(view);
  draw_x_axis(view);
}

void TimelinePanel::draw_title(const render::ViewTransform& view) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float y = area_.y + kMargin;
  std::string shown;
  if (axis_ == TimelineAxis::Time)
    shown = "showing " + render::format_duration(view.t0_ns) + " to " +
            render::format_duration(view.t1_ns) + "  (" +
            render::format_duration(view.t1_ns - view.t0_ns) + ")";
  else
    shown = "showing steps " + thousands(static_cast<std::int64_t>(std::max(0.0, view.t0_ns))) +
            " to " + thousands(static_cast<std::int64_t>(std::min(view.t1_ns, x_end_))) + " of " +
            thousands(static_cast<std::int64_t>(x_end_));
  const float room = area_.width - 2 * kMargin;
  float shown_width = ImGui::CalcTextSize(shown.c_str()).x;
  // The title comes first; the span goes right when both fit, else it is dropped.
  const bool both = ImGui::CalcTextSize(title_.c_str()).x + 3 * kMargin + shown_width <= room;
  std::string scratch;
  draw->AddText(ImVec2(area_.x + kMargin, y), kTextColor,
                fit_text(title_, room, scratch).c_str());
  if (both)
    draw->AddText(ImVec2(area_.x + area_.width - kMargin - shown_width, y), kDimTextColor,
                  shown.c_str());
}

void TimelinePanel::draw_process_names(const render::ViewTransform& view) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  const double row_px = view.px_per_row();
  // Label every k-th row so that labels never overlap.
  const auto every = static_cast<std::int64_t>(std::max(1.0, std::ceil(line / row_px)));
  const auto rows = static_cast<std::int64_t>(row_count());
  std::int64_t first = std::max<std::int64_t>(0, static_cast<std::int64_t>(view.row0));
  first = (first + every - 1) / every * every;
  const std::int64_t last = std::min<std::int64_t>(rows - 1, static_cast<std::int64_t>(view.row1));
  draw->PushClipRect(ImVec2(area_.x, view.plot.y - line), ImVec2(view.plot.x - 4.0f, view.plot.y + view.plot.height + line));
  for (std::int64_t r = first; r <= last; r += every) {
    const std::string& name = row_label_of(process_of_row(r));
    double center = view.y_of(static_cast<double>(r) + 0.5);
    if (center < view.plot.y || center > view.plot.y + view.plot.height) continue;
    float width = ImGui::CalcTextSize(name.c_str()).x;
    float x = std::max(area_.x + kMargin, view.plot.x - kMargin - width);
    draw->AddText(ImVec2(x, static_cast<float>(center) - 0.5f * line), kTextColor, name.c_str());
  }
  draw->PopClipRect();
}

void TimelinePanel::draw_x_axis(const render::ViewTransform& view) {
  ImDrawList* back = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  const float axis_y = view.plot.y + view.plot.height;
  const float left = view.plot.x;
  const float right = view.plot.x + view.plot.width;
  back->AddLine(ImVec2(left, axis_y), ImVec2(right, axis_y), kAxisColor);

  // Pick ticks for a typical label width, then again if the labels this span
  // really gets (long ones when zoomed deep into a long trace) would touch.
  const float gap = 2.5f * line;
  const bool steps = axis_ == TimelineAxis::Steps;
  // Step labels are integers; a tick marks the middle of its step's column.
  auto label_of = [&](double x) {
    return steps ? thousands(static_cast<std::int64_t>(x)) : render::format_tick_label(ticks_, x);
  };
  const double tick_offset = steps ? 0.5 : 0.0;
  float label_room = ImGui::CalcTextSize(steps ? "000,000" : "0000.0 ms").x + gap;
  for (int pass = 0; pass < 2; ++pass) {
    render::choose_time_ticks(view.t0_ns, view.t1_ns, view.plot.width, label_room, ticks_);
    float widest = 0;
    for (double t : {view.t0_ns, view.t1_ns})
      widest = std::max(widest, ImGui::CalcTextSize(label_of(t).c_str()).x);
    if (widest + gap <= label_room) break;
    label_room = widest + gap;
  }
  // Grid lines go over the boxes (ImGui draws after them), so they stay faint.
  ImDrawList* grid = ImGui::GetForegroundDrawList();
  for (double t : ticks_.at_ns) {
    if (steps && (t < 0 || t >= x_end_ || t + tick_offset > view.t1_ns)) continue;
    auto x = static_cast<float>(view.x_of(t + tick_offset));
    grid->AddLine(ImVec2(x, view.plot.y), ImVec2(x, axis_y), kGridColor);
    back->AddLine(ImVec2(x, axis_y), ImVec2(x, axis_y + kTickLength), kAxisColor);
    std::string label = label_of(t);
    float width = ImGui::CalcTextSize(label.c_str()).x;
    // Keep end labels inside the plot's width rather than under the gutter or legend.
    float lx = std::clamp(x - 0.5f * width, left - 0.5f * width, right - width * 0.5f);
    back->AddText(ImVec2(lx, axis_y + kTickLength + 4.0f), kTextColor, label.c_str());
  }
  const char* title = steps ? "global logical step" : "time since trace start";
  float title_width = ImGui::CalcTextSize(title).x;
  back->AddText(ImVec2(left + 0.5f * (view.plot.width - title_width),
                       axis_y + kTickLength + 4.0f + line + 4.0f),
                kDimTextColor, title);
}

}  // namespace weft::app
