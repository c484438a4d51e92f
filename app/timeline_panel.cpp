#include "app/timeline_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace weft::app {

namespace {

constexpr float kMargin = 10.0f;
constexpr float kTickLength = 5.0f;
constexpr double kMinSpanNs = 20.0;  // deeper zoom shows nothing the clock can resolve

ImU32 im_color(render::Rgba8 c) { return static_cast<ImU32>(c); }  // both are 0xAABBGGRR

const ImU32 kTextColor = IM_COL32(225, 225, 230, 255);
const ImU32 kDimTextColor = IM_COL32(160, 160, 170, 255);
const ImU32 kAxisColor = IM_COL32(150, 150, 160, 255);
const ImU32 kGridColor = IM_COL32(255, 255, 255, 28);

std::string thousands(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

// `text`, or its longest prefix that fits in `width` px followed by "...".
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

// Zooms [a, b] by `factor` keeping `pivot` at the same screen position.
void zoom_about(double& a, double& b, double pivot, double factor) {
  a = pivot + (a - pivot) * factor;
  b = pivot + (b - pivot) * factor;
}

}  // namespace

TimelinePanel::TimelinePanel(const TraceInfo& info) : info_(info) { fit(); }

void TimelinePanel::fit() {
  viewport_.t0_ns = 0;
  viewport_.t1_ns = static_cast<double>(std::max<TimeNs>(info_.meta.trace_end_ns, 1));
  viewport_.row0 = 0;
  viewport_.row1 = static_cast<double>(std::max<std::size_t>(info_.processes.size(), 1));
}

void TimelinePanel::set_viewport(const TimelineViewport& viewport) {
  viewport_ = viewport;
  clamp_viewport();
}

void TimelinePanel::clamp_viewport() {
  // Allow a little empty space around the trace, never more than one trace
  // span of zoom-out, and never a span the clock cannot resolve.
  const double end = static_cast<double>(std::max<TimeNs>(info_.meta.trace_end_ns, 1));
  double span = std::clamp(viewport_.t1_ns - viewport_.t0_ns, kMinSpanNs, end * 1.2);
  double t0 = std::clamp(viewport_.t0_ns, -0.1 * end, std::max(-0.1 * end, 1.1 * end - span));
  viewport_.t0_ns = t0;
  viewport_.t1_ns = t0 + span;

  const double rows = static_cast<double>(std::max<std::size_t>(info_.processes.size(), 1));
  double row_span = std::clamp(viewport_.row1 - viewport_.row0, std::min(1.0, rows), rows);
  double row0 = std::clamp(viewport_.row0, 0.0, rows - row_span);
  viewport_.row0 = row0;
  viewport_.row1 = row0 + row_span;
}

void TimelinePanel::measure_labels() {
  // Measured once: a trace with 16K processes must not measure 16K names a frame.
  name_width_ = 0;
  for (const std::string& name : info_.processes.name)
    name_width_ = std::max(name_width_, ImGui::CalcTextSize(name.c_str()).x);
  float widest = ImGui::CalcTextSize("message").x;
  for (const std::string& name : info_.regions.name)
    widest = std::max(widest, ImGui::CalcTextSize(name.c_str()).x);
  legend_width_ = ImGui::GetFontSize() + 8.0f + widest;
  legend_text_.reserve(256);
  measured_ = true;
}

render::ViewTransform TimelinePanel::layout(int framebuffer_width, int framebuffer_height) {
  if (!measured_) measure_labels();
  const auto width = static_cast<float>(framebuffer_width);
  const auto height = static_cast<float>(framebuffer_height);
  const float line = ImGui::GetTextLineHeight();

  float gutter = std::min(name_width_, 0.25f * width) + 2 * kMargin;
  float legend = std::min(legend_width_, 0.2f * width) + 2 * kMargin;
  float top = kMargin + line + kMargin;
  // Ticks, tick labels, the axis title and a margin below the plot.
  float bottom = kTickLength + 4.0f + line + 4.0f + line + kMargin;

  render::ViewTransform view;
  view.framebuffer_width = framebuffer_width;
  view.framebuffer_height = framebuffer_height;
  view.plot = {gutter, top, std::max(width - gutter - legend, 1.0f),
               std::max(height - top - bottom, 1.0f)};
  legend_rect_ = {view.plot.x + view.plot.width + kMargin, top, legend - 2 * kMargin,
                  view.plot.height};
  view.t0_ns = viewport_.t0_ns;
  view.t1_ns = viewport_.t1_ns;
  view.row0 = viewport_.row0;
  view.row1 = viewport_.row1;
  return view;
}

void TimelinePanel::handle_input(const render::ViewTransform& view) {
  ImGuiIO& io = ImGui::GetIO();
  const bool mouse_in_plot = view.plot.contains(io.MousePos.x, io.MousePos.y);
  TimelineViewport next = viewport_;
  const double span = next.t1_ns - next.t0_ns;

  if (mouse_in_plot && io.MouseWheel != 0.0f) {
    double factor = std::pow(0.85, static_cast<double>(io.MouseWheel));
    if (io.KeyCtrl)
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
  viewport_ = next;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home))) fit();
  clamp_viewport();
}

std::int64_t TimelinePanel::draw_overlay(const render::ViewTransform& view,
                                         const LoadedWindow* data, bool hover) {
  draw_title(view);
  draw_process_names(view);
  draw_time_axis(view);
  draw_legend(view, data);
  if (!hover || !data) return -1;
  return draw_tooltip(view, *data);
}

void TimelinePanel::draw_title(const render::ViewTransform& view) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  std::string title = info_.file_name + "  \xc2\xb7  physical timeline  \xc2\xb7  " +
                      thousands(static_cast<std::int64_t>(info_.processes.size())) +
                      " processes, " + thousands(info_.meta.count_events) + " events, " +
                      thousands(info_.meta.count_messages) + " messages";
  draw->AddText(ImVec2(kMargin, kMargin), kTextColor, title.c_str());
  std::string shown = "showing " + render::format_duration(view.t0_ns) + " to " +
                      render::format_duration(view.t1_ns) + "  (" +
                      render::format_duration(view.t1_ns - view.t0_ns) + ")";
  float width = ImGui::CalcTextSize(shown.c_str()).x;
  draw->AddText(ImVec2(static_cast<float>(view.framebuffer_width) - kMargin - width, kMargin),
                kDimTextColor, shown.c_str());
}

void TimelinePanel::draw_process_names(const render::ViewTransform& view) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  const double row_px = view.px_per_row();
  // Label every k-th row so that labels never overlap.
  const auto every = static_cast<std::int64_t>(std::max(1.0, std::ceil(line / row_px)));
  const auto rows = static_cast<std::int64_t>(info_.processes.size());
  std::int64_t first = std::max<std::int64_t>(0, static_cast<std::int64_t>(view.row0));
  first = (first + every - 1) / every * every;
  const std::int64_t last = std::min<std::int64_t>(rows - 1, static_cast<std::int64_t>(view.row1));
  draw->PushClipRect(ImVec2(0, view.plot.y - line), ImVec2(view.plot.x - 4.0f, view.plot.y + view.plot.height + line));
  for (std::int64_t r = first; r <= last; r += every) {
    const std::string& name = info_.processes.name[static_cast<std::size_t>(r)];
    double center = view.y_of(static_cast<double>(r) + 0.5);
    if (center < view.plot.y || center > view.plot.y + view.plot.height) continue;
    float width = ImGui::CalcTextSize(name.c_str()).x;
    float x = std::max(kMargin, view.plot.x - kMargin - width);
    draw->AddText(ImVec2(x, static_cast<float>(center) - 0.5f * line), kTextColor, name.c_str());
  }
  draw->PopClipRect();
}

void TimelinePanel::draw_time_axis(const render::ViewTransform& view) {
  ImDrawList* back = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  const float axis_y = view.plot.y + view.plot.height;
  const float left = view.plot.x;
  const float right = view.plot.x + view.plot.width;
  back->AddLine(ImVec2(left, axis_y), ImVec2(right, axis_y), kAxisColor);

  // Pick ticks for a typical label width, then again if the labels this span
  // really gets (long ones when zoomed deep into a long trace) would touch.
  const float gap = 2.5f * line;
  float label_room = ImGui::CalcTextSize("0000.0 ms").x + gap;
  for (int pass = 0; pass < 2; ++pass) {
    render::choose_time_ticks(view.t0_ns, view.t1_ns, view.plot.width, label_room, ticks_);
    float widest = 0;
    for (double t : {view.t0_ns, view.t1_ns})
      widest = std::max(widest, ImGui::CalcTextSize(render::format_tick_label(ticks_, t).c_str()).x);
    if (widest + gap <= label_room) break;
    label_room = widest + gap;
  }
  // Grid lines go over the boxes (ImGui draws after them), so they stay faint.
  ImDrawList* grid = ImGui::GetForegroundDrawList();
  for (double t : ticks_.at_ns) {
    auto x = static_cast<float>(view.x_of(t));
    grid->AddLine(ImVec2(x, view.plot.y), ImVec2(x, axis_y), kGridColor);
    back->AddLine(ImVec2(x, axis_y), ImVec2(x, axis_y + kTickLength), kAxisColor);
    std::string label = render::format_tick_label(ticks_, t);
    float width = ImGui::CalcTextSize(label.c_str()).x;
    // Keep end labels inside the plot's width rather than under the gutter or legend.
    float lx = std::clamp(x - 0.5f * width, left - 0.5f * width, right - width * 0.5f);
    back->AddText(ImVec2(lx, axis_y + kTickLength + 4.0f), kTextColor, label.c_str());
  }
  const char* title = "time since trace start";
  float title_width = ImGui::CalcTextSize(title).x;
  back->AddText(ImVec2(left + 0.5f * (view.plot.width - title_width),
                       axis_y + kTickLength + 4.0f + line + 4.0f),
                kDimTextColor, title);
}

void TimelinePanel::draw_legend(const render::ViewTransform& view, const LoadedWindow* data) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  const float swatch = ImGui::GetFontSize() - 2.0f;
  const float x = legend_rect_.x;
  float y = legend_rect_.y;
  const float bottom = legend_rect_.y + legend_rect_.height;
  draw->PushClipRect(ImVec2(x, legend_rect_.y),
                     ImVec2(static_cast<float>(view.framebuffer_width), bottom));
  const float step = line + 3.0f;
  const float text_x = x + swatch + 8.0f;
  const float text_right = legend_rect_.x + legend_rect_.width;
  // The regions in view by time when a window is loaded, else all of them.
  const std::vector<std::int32_t>& order = data ? data->legend_regions : info_.legend_order;
  // Entries that fit; the last slot says how many did not.
  const auto slots = static_cast<std::size_t>(std::max(0.0f, (bottom - y) / step));
  const std::size_t entries = order.size() + 1;  // regions + "message"
  const std::size_t shown = entries <= slots ? entries : (slots > 0 ? slots - 1 : 0);
  for (std::size_t i = 0; i < shown; ++i, y += step) {
    const float mid = y + 0.5f * line;
    if (i == order.size()) {
      draw->AddLine(ImVec2(x, mid + 3.0f), ImVec2(x + swatch, mid - 3.0f),
                    IM_COL32(240, 240, 240, 220), 1.5f);
      draw->AddText(ImVec2(x + swatch + 8.0f, y), kTextColor, "message");
      continue;
    }
    auto region = static_cast<std::size_t>(order[i]);
    ImVec2 a(x, mid - 0.5f * swatch);
    ImVec2 b(x + swatch, mid + 0.5f * swatch);
    draw->AddRectFilled(a, b, im_color(info_.region_colors[region]));
    draw->AddRect(a, b, IM_COL32(0, 0, 0, 160));
    const std::string& name = info_.regions.name[region];
    draw->AddText(ImVec2(text_x, y), kTextColor,
                  fit_text(name, text_right - text_x, legend_text_).c_str());
  }
  if (shown < entries && slots > 0) {
    std::string more = "+" + std::to_string(entries - shown) + " more";
    draw->AddText(ImVec2(x, y), kDimTextColor, more.c_str());
  }
  draw->PopClipRect();
}

std::int64_t TimelinePanel::draw_tooltip(const render::ViewTransform& view,
                                         const LoadedWindow& data) {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  std::int64_t box = render::pick_box(data.geometry, data.picks, view, mouse.x, mouse.y);
  if (box < 0) return -1;
  const std::size_t event = data.geometry.box_event[static_cast<std::size_t>(box)];
  const std::int32_t region = data.events.region[event];
  const std::string& region_name = region >= 0
                                       ? info_.regions.name[static_cast<std::size_t>(region)]
                                       : std::string("(unknown region)");
  const auto process = static_cast<std::size_t>(data.events.process[event]);
  const auto start = static_cast<double>(data.events.start_ns[event]);
  const auto duration = static_cast<double>(data.events.end_ns[event] - data.events.start_ns[event]);
  // Start time to the precision of one pixel at this zoom.
  double pixel_ns = std::pow(10.0, std::floor(std::log10(std::max(1.0, 1.0 / view.px_per_ns()))));
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(region_name.c_str());
  ImGui::Separator();
  ImGui::Text("process   %s", info_.processes.name[process].c_str());
  ImGui::Text("start     %s", render::format_time_at_resolution(start, pixel_ns).c_str());
  ImGui::Text("duration  %s", render::format_duration(duration).c_str());
  ImGui::Text("depth     %d", data.events.depth[event]);
  ImGui::EndTooltip();
  return box;
}

}  // namespace weft::app
