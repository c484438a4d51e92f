#include "app/logical_overlay.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/overlay_style.h"
#include "app/physical_overlay.h"
#include "app/timeline_panel.h"
#include "metric_colormap.h"
#include "structure/comm_trace.h"
#include "time_ticks.h"
#include "timeline_picking.h"

namespace weft::app {

namespace {

constexpr int kBarSegments = 64;

// The process at the other end of the message this event sends or receives at
// `step`, or -1 when no message line of the window touches it.
std::int64_t message_partner(const LoadedLogicalWindow& data, std::size_t event) {
  const db::StepMessages& m = data.messages;
  const ProcessIndex p = data.events.process[event];
  const std::int32_t step = data.events.step[event];
  const std::int32_t send_step = data.events.send_step[event];
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m.dst[i] == p && m.recv_step[i] == step) return m.src[i];
    if (m.src[i] == p && (m.send_step[i] == step || m.send_step[i] == send_step)) return m.dst[i];
  }
  return -1;
}

// Tooltip of a level-of-detail cell run: the processes and steps it covers
// and the largest value of each metric in it.
std::int64_t draw_step_lod_tooltip(const TraceInfo& info, const db::StructureFacts& facts,
                                   const render::ViewTransform& view, const LoadedLogicalWindow& data) {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const double row = view.row_at(mouse.y), step = view.time_at(mouse.x);
  if (row < 0 || step < 0) return -1;
  const auto block = static_cast<std::int64_t>(row) / data.lod_block_rows;
  const auto bin = static_cast<std::int64_t>(step) / data.lod_bin_steps;
  const db::CellGrid& grid = data.lod.grid;
  const std::uint8_t* cell = grid.at(block, bin);
  if (!cell || cell[db::kLodClasses] == 0) return -1;
  const auto [first_bin, last_bin] = grid.run_around(block, bin);
  const std::int64_t first = block * data.lod_block_rows;
  const std::int64_t last =
      std::min<std::int64_t>(first + data.lod_block_rows, static_cast<std::int64_t>(info.processes.size())) - 1;
  if (first > last) return -1;
  auto upto = [](std::uint8_t q, TimeNs max) {
    return q == 0 ? std::string("0") : "up to " + render::format_duration(static_cast<double>(q) / 255.0 * static_cast<double>(max));
  };
  ImGui::BeginTooltip();
  ImGui::Text("%s to %s, steps %lld to %lld", info.processes.name[static_cast<std::size_t>(first)].c_str(),
              info.processes.name[static_cast<std::size_t>(last)].c_str(),
              static_cast<long long>(first_bin * data.lod_bin_steps),
              static_cast<long long>((last_bin + 1) * data.lod_bin_steps - 1));
  ImGui::Separator();
  ImGui::Text("lateness         %s", upto(cell[db::kLodLateness], facts.max_lateness_ns).c_str());
  ImGui::Text("diff. lateness   %s", upto(cell[db::kLodDiffLateness], facts.max_diff_lateness_ns).c_str());
  ImGui::Text("global lateness  %s", upto(cell[db::kLodGlobalLateness], facts.max_global_lateness_ns).c_str());
  ImGui::Text("duration         %s", upto(cell[db::kLodDuration], facts.max_duration_ns).c_str());
  ImGui::Text("mostly           %s", db::start_class_name(dominant_class(cell[db::kLodClasses])));
  ImGui::TextDisabled("zoom in for the events");
  ImGui::EndTooltip();
  return -1;  // nothing to highlight: the cells are one image
}

}  // namespace

float logical_legend_width(const TraceInfo& info, LogicalColor color) {
  if (color == LogicalColor::Function) return physical_legend_width(info);
  return std::max(ImGui::CalcTextSize("differential lateness").x,
                  ImGui::CalcTextSize("aggregated work").x + ImGui::GetFontSize() + 8.0f);
}

void draw_metric_legend(const TraceInfo& info, const db::StructureFacts& facts,
                        LogicalColor color, const render::PixelRect& rect, std::string& scratch) {
  if (color == LogicalColor::Function) {
    draw_region_legend(info, rect, nullptr, scratch);
    return;
  }
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  const float swatch = ImGui::GetFontSize() - 2.0f;
  draw->PushClipRect(ImVec2(rect.x, rect.y), ImVec2(rect.x + rect.width + kMargin, rect.y + rect.height));
  draw->AddText(ImVec2(rect.x, rect.y), kTextColor, logical_color_title(color, info.task_rows));

  // The bar: top = the run's maximum, bottom = 0, room kept for two swatches below.
  const float bar_top = rect.y + line + 0.5f * line + 4.0f;
  const float bar_bottom = std::max(bar_top + 20.0f, rect.y + rect.height - 2.0f * (line + 4.0f) - line);
  const float bar_width = swatch;
  const double max_value = static_cast<double>(logical_metric_max(facts, color));
  for (int i = 0; i < kBarSegments; ++i) {
    float y0 = bar_bottom - (bar_bottom - bar_top) * static_cast<float>(i + 1) / kBarSegments;
    float y1 = bar_bottom - (bar_bottom - bar_top) * static_cast<float>(i) / kBarSegments;
    double u = (static_cast<double>(i) + 0.5) / kBarSegments;
    draw->AddRectFilled(ImVec2(rect.x, y0), ImVec2(rect.x + bar_width, y1 + 0.5f),
                        im_color(render::metric_color(u, 1.0)));
  }
  draw->AddRect(ImVec2(rect.x, bar_top), ImVec2(rect.x + bar_width, bar_bottom), IM_COL32(0, 0, 0, 160));
  // Labels at 0, 1/4, ..., max: in time units, since every metric is a time.
  const int labels = bar_bottom - bar_top > 6 * line ? 5 : 2;
  for (int i = 0; i < labels; ++i) {
    double u = static_cast<double>(i) / (labels - 1);
    float y = bar_bottom - (bar_bottom - bar_top) * static_cast<float>(u);
    draw->AddLine(ImVec2(rect.x + bar_width, y), ImVec2(rect.x + bar_width + 4.0f, y), kAxisColor);
    std::string label = u == 0.0 ? std::string("0") : render::format_duration(u * max_value);
    draw->AddText(ImVec2(rect.x + bar_width + 7.0f, y - 0.5f * line), kTextColor, label.c_str());
  }
  // Swatches: aggregated work and message lines.
  float y = bar_bottom + line;
  const float mid = y + 0.5f * line;
  draw->AddRectFilled(ImVec2(rect.x, mid - 0.3f * swatch), ImVec2(rect.x + swatch, mid + 0.3f * swatch),
                      im_color(kAggregateWorkColor));
  draw->AddText(ImVec2(rect.x + swatch + 8.0f, y), kTextColor, "aggregated work");
  y += line + 4.0f;
  draw->AddLine(ImVec2(rect.x, y + 0.5f * line + 3.0f), ImVec2(rect.x + swatch, y + 0.5f * line - 3.0f),
                IM_COL32(240, 240, 240, 220), 1.5f);
  draw->AddText(ImVec2(rect.x + swatch + 8.0f, y), kTextColor, "message");
  draw->PopClipRect();
}

std::int64_t draw_logical_tooltip(const TraceInfo& info, const db::StructureFacts& facts,
                                  const render::ViewTransform& view, const LoadedLogicalWindow& data) {
  if (data.from_lod) return draw_step_lod_tooltip(info, facts, view, data);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  std::int64_t box = render::pick_box(data.geometry, data.picks, view, mouse.x, mouse.y);
  if (box < 0) return -1;
  const std::uint32_t tag = data.geometry.box_event[static_cast<std::size_t>(box)];
  const std::size_t i = tag & ~kAggregateBoxFlag;
  const db::StepEvents& e = data.events;
  const std::string& process = info.processes.name[static_cast<std::size_t>(e.process[i])];
  ImGui::BeginTooltip();
  if (tag & kAggregateBoxFlag) {
    ImGui::TextUnformatted("non-communication work");
    ImGui::Separator();
    ImGui::Text("process    %s", process.c_str());
    ImGui::Text("before     step %d", e.send_step[i] >= 0 ? e.send_step[i] : e.step[i]);
    ImGui::EndTooltip();
    return box;
  }
  const std::int32_t region = info.regions.index_of(e.region[i]);
  ImGui::TextUnformatted(region >= 0 ? info.regions.name[static_cast<std::size_t>(region)].c_str()
                                     : "(unknown region)");
  ImGui::Separator();
  ImGui::Text("process    %s", process.c_str());
  if (e.send_step[i] >= 0)
    ImGui::Text("steps      %d (send), %d (receive)", e.send_step[i], e.step[i]);
  else
    ImGui::Text("step       %d", e.step[i]);
  ImGui::Text("partition  %d", e.partition[i]);
  ImGui::Text("kind       %s", structure::op_kind_name(static_cast<structure::OpKind>(e.kind[i])));
  ImGui::Text("start      %s", render::format_duration(static_cast<double>(e.start_ns[i])).c_str());
  ImGui::Text("duration   %s", render::format_duration(static_cast<double>(e.end_ns[i] - e.start_ns[i])).c_str());
  const bool task = info.task_rows;  // the same columns, task metrics (docs/schema.md, "Task runs")
  ImGui::Text("%-16s %s", task ? "idle experienced" : "lateness",
              render::format_duration(static_cast<double>(e.lateness_ns[i])).c_str());
  ImGui::Text("%-16s %s", task ? "diff. duration" : "diff. lateness",
              render::format_duration(static_cast<double>(e.diff_lateness_ns[i])).c_str());
  ImGui::Text("%-16s %s", task ? "imbalance" : "global lateness",
              render::format_duration(static_cast<double>(e.global_lateness_ns[i])).c_str());
  ImGui::Text("%-16s %s", task ? "sub-block" : "wait", render::format_duration(static_cast<double>(e.wait_ns[i])).c_str());
  if (std::int64_t partner = message_partner(data, i); partner >= 0)
    ImGui::Text("partner    %s", info.processes.name[static_cast<std::size_t>(partner)].c_str());
  ImGui::EndTooltip();
  return box;
}

}  // namespace weft::app
