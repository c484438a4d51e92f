#include "app/physical_overlay.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/class_colors.h"
#include "app/overlay_style.h"
#include "app/timeline_panel.h"
#include "time_ticks.h"
#include "timeline_picking.h"

namespace weft::app {

float physical_legend_width(const TraceInfo& info) {
  float widest = ImGui::CalcTextSize("message").x;
  for (const std::string& name : info.regions.name)
    widest = std::max(widest, ImGui::CalcTextSize(name.c_str()).x);
  return ImGui::GetFontSize() + 8.0f + widest;
}

namespace {

// The legend of a level-of-detail window: the classes its cells show.
void draw_class_legend(const render::PixelRect& rect) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  const float swatch = ImGui::GetFontSize() - 2.0f;
  float y = rect.y;
  draw->AddText(ImVec2(rect.x, y), kDimTextColor, "zoomed out:");
  y += line + 3.0f;
  draw->AddText(ImVec2(rect.x, y), kDimTextColor, "busiest class");
  y += line + 6.0f;
  for (int k = 0; k < db::kStartClasses; ++k, y += line + 3.0f) {
    const float mid = y + 0.5f * line;
    draw->AddRectFilled(ImVec2(rect.x, mid - 0.5f * swatch), ImVec2(rect.x + swatch, mid + 0.5f * swatch),
                        im_color(class_color(static_cast<db::StartClass>(k))));
    draw->AddText(ImVec2(rect.x + swatch + 8.0f, y), kTextColor,
                  db::start_class_name(static_cast<db::StartClass>(k)));
  }
  draw->AddText(ImVec2(rect.x, y + 3.0f), kDimTextColor, "dim: mostly idle");
}

// Tooltip of the level-of-detail cell run under the mouse: the cells of one
// class around it in its block's row.
std::int64_t draw_lod_tooltip(const TraceInfo& info, const render::ViewTransform& view,
                              const LoadedWindow& data) {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const db::CellGrid& grid = data.lod.grid;
  const double row = view.row_at(mouse.y), t = view.time_at(mouse.x);
  if (row < 0 || t < 0) return -1;
  const auto block = static_cast<std::int64_t>(row) / data.lod_block_rows;
  const auto bin = static_cast<std::int64_t>(t) / data.lod_bin_ns;
  const std::uint8_t* cell = grid.at(block, bin);
  if (!cell || cell[0] == 0 || cell[0] > db::kStartClasses) return -1;
  // The run: neighbours of the same class, busy up to the largest of them.
  std::int64_t first = bin, last = bin;
  std::uint8_t busy = cell[1];
  auto same_class = [&](std::int64_t b) {
    const std::uint8_t* c = grid.at(block, b);
    if (!c || c[0] != cell[0]) return false;
    busy = std::max(busy, c[1]);
    return true;
  };
  while (same_class(first - 1)) --first;
  while (same_class(last + 1)) ++last;
  const std::int64_t first_row = block * data.lod_block_rows;
  const std::int64_t last_row =
      std::min<std::int64_t>(first_row + data.lod_block_rows, static_cast<std::int64_t>(info.processes.size())) - 1;
  if (first_row > last_row) return -1;
  const double t0 = static_cast<double>(first * data.lod_bin_ns);
  const double t1 = static_cast<double>((last + 1) * data.lod_bin_ns);
  ImGui::BeginTooltip();
  ImGui::Text("%lld processes, %s", static_cast<long long>(last_row - first_row + 1),
              render::format_duration(t1 - t0).c_str());
  ImGui::Separator();
  ImGui::Text("processes  %s to %s", info.processes.name[static_cast<std::size_t>(first_row)].c_str(),
              info.processes.name[static_cast<std::size_t>(last_row)].c_str());
  ImGui::Text("from       %s", render::format_duration(t0).c_str());
  ImGui::Text("mostly     %s", db::start_class_name(static_cast<db::StartClass>(cell[0] - 1)));
  ImGui::Text("busy       up to %d%%", static_cast<int>(busy * 100 / 255));
  ImGui::TextDisabled("zoom in for the events");
  ImGui::EndTooltip();
  return -1;  // nothing to highlight: the cells are one image
}

}  // namespace

void draw_region_legend(const TraceInfo& info, const render::PixelRect& rect,
                        const LoadedWindow* data, std::string& scratch) {
  if (data && data->from_lod) {
    draw_class_legend(rect);
    return;
  }
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  const float swatch = ImGui::GetFontSize() - 2.0f;
  const float x = rect.x;
  float y = rect.y;
  const float bottom = rect.y + rect.height;
  draw->PushClipRect(ImVec2(x, rect.y),
                     ImVec2(rect.x + rect.width + kMargin, bottom));
  const float step = line + 3.0f;
  const float text_x = x + swatch + 8.0f;
  const float text_right = rect.x + rect.width;
  // The regions in view by time when a window is loaded, else all of them.
  const std::vector<std::int32_t>& order = data ? data->legend_regions : info.legend_order;
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
    draw->AddRectFilled(a, b, im_color(info.region_colors[region]));
    draw->AddRect(a, b, IM_COL32(0, 0, 0, 160));
    const std::string& name = info.regions.name[region];
    draw->AddText(ImVec2(text_x, y), kTextColor,
                  fit_text(name, text_right - text_x, scratch).c_str());
  }
  if (shown < entries && slots > 0) {
    std::string more = "+" + std::to_string(entries - shown) + " more";
    draw->AddText(ImVec2(x, y), kDimTextColor, more.c_str());
  }
  draw->PopClipRect();
}

std::int64_t draw_physical_tooltip(const TraceInfo& info, const render::ViewTransform& view,
                                   const LoadedWindow& data) {
  if (data.from_lod) return draw_lod_tooltip(info, view, data);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  std::int64_t box = render::pick_box(data.geometry, data.picks, view, mouse.x, mouse.y);
  if (box < 0) return -1;
  const std::size_t event = data.geometry.box_event[static_cast<std::size_t>(box)];
  const std::int32_t region = data.events.region[event];
  const std::string& region_name = region >= 0
                                       ? info.regions.name[static_cast<std::size_t>(region)]
                                       : std::string("(unknown region)");
  const auto process = static_cast<std::size_t>(data.events.process[event]);
  const auto start = static_cast<double>(data.events.start_ns[event]);
  const auto duration = static_cast<double>(data.events.end_ns[event] - data.events.start_ns[event]);
  // Start time to the precision of one pixel at this zoom.
  double pixel_ns = std::pow(10.0, std::floor(std::log10(std::max(1.0, 1.0 / view.px_per_ns()))));
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(region_name.c_str());
  ImGui::Separator();
  ImGui::Text("process   %s", info.processes.name[process].c_str());
  ImGui::Text("start     %s", render::format_time_at_resolution(start, pixel_ns).c_str());
  ImGui::Text("duration  %s", render::format_duration(duration).c_str());
  ImGui::Text("depth     %d", data.events.depth[event]);
  ImGui::EndTooltip();
  return box;
}

}  // namespace weft::app
