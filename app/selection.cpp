#include "app/selection.h"

#include <imgui.h>

#include "app/overlay_style.h"
#include "app/view_filter.h"

namespace weft::app {

namespace {

// The other end of the message that `end` sends or receives in the window.
std::optional<SelectedEnd> partner_of(const SelectedEnd& end, std::int32_t send_step,
                                      const LoadedLogicalWindow& data) {
  const db::StepMessages& m = data.messages;
  ProcessIndex process = -1;
  std::int32_t step = -1;
  for (std::size_t i = 0; i < m.size() && process < 0; ++i) {
    if (m.dst[i] == end.process && m.recv_step[i] == end.step) process = m.src[i], step = m.send_step[i];
    else if (m.src[i] == end.process && (m.send_step[i] == end.step || m.send_step[i] == send_step))
      process = m.dst[i], step = m.recv_step[i];
  }
  if (process < 0) return std::nullopt;
  SelectedEnd partner{process, 0, 0, step};
  const db::StepEvents& e = data.events;
  for (std::size_t i = 0; i < e.size(); ++i)
    if (e.process[i] == process && (e.step[i] == step || e.send_step[i] == step)) {
      partner.start_ns = e.start_ns[i];
      partner.end_ns = e.end_ns[i];
      break;
    }
  return partner;
}

Selection from_logical_event(const LoadedLogicalWindow& data, std::size_t i) {
  const db::StepEvents& e = data.events;
  Selection s;
  s.event = e.event[i];
  s.self = {e.process[i], e.start_ns[i], e.end_ns[i], e.step[i]};
  s.partition = e.partition[i];
  s.partner = partner_of(s.self, e.send_step[i], data);
  return s;
}

void outline(ImDrawList* draw, const render::ViewTransform& view, double x0, double x1, std::int32_t row,
             ImU32 color) {
  if (row < 0) return;
  const auto a = static_cast<float>(view.x_of(x0)) - 2.0f, b = std::max(static_cast<float>(view.x_of(x1)), a + 4.0f) + 2.0f;
  const auto top = static_cast<float>(view.y_of(row)) - 2.0f;
  const auto bottom = static_cast<float>(view.y_of(row + 1.0)) + 2.0f;
  draw->AddRect(ImVec2(a, top), ImVec2(b, bottom), color, 0.0f, 0, 2.0f);
}

}  // namespace

std::optional<Selection> select_in_physical(const LoadedWindow& data, std::int64_t box) {
  if (box < 0 || data.from_lod) return std::nullopt;
  const std::size_t i = data.geometry.box_event[static_cast<std::size_t>(box)];
  Selection s;
  s.event = data.events.id[i];
  s.self = {data.events.process[i], data.events.start_ns[i], data.events.end_ns[i], -1};
  return s;
}

std::optional<Selection> select_in_logical(const LoadedLogicalWindow& data, std::int64_t box) {
  if (box < 0) return std::nullopt;
  const std::uint32_t tag = data.geometry.box_event[static_cast<std::size_t>(box)];
  if ((tag & kAggregateBoxFlag) || data.from_lod) return std::nullopt;
  return from_logical_event(data, tag);
}

std::optional<Selection> select_event(const LoadedWindow& data, EventId event) {
  for (std::size_t i = 0; i < data.events.size(); ++i)
    if (data.events.id[i] == event) {
      Selection s;
      s.event = event;
      s.self = {data.events.process[i], data.events.start_ns[i], data.events.end_ns[i], -1};
      return s;
    }
  return std::nullopt;
}

void link_to_structure(Selection& selection, const LoadedLogicalWindow* logical) {
  if (!logical || selection.self.step >= 0) return;
  const db::StepEvents& e = logical->events;
  for (std::size_t i = 0; i < e.size(); ++i)
    if (e.event[i] == selection.event) {
      selection = from_logical_event(*logical, i);
      return;
    }
}

void draw_selection(const Selection& s, const render::ViewTransform& view, bool steps_axis,
                    const db::PartitionSpans& spans, const ViewFilter& filter) {
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  draw->PushClipRect(ImVec2(view.plot.x, view.plot.y),
                     ImVec2(view.plot.x + view.plot.width, view.plot.y + view.plot.height), true);
  // The partition: a band over its steps, or over its time.
  if (s.partition >= 0 && static_cast<std::size_t>(s.partition) < spans.index_of.size()) {
    const std::int32_t k = spans.index_of[static_cast<std::size_t>(s.partition)];
    if (k >= 0) {
      const auto uk = static_cast<std::size_t>(k);
      const double x0 = steps_axis ? static_cast<double>(spans.first_step[uk]) : static_cast<double>(spans.begin_ns[uk]);
      const double x1 = steps_axis ? static_cast<double>(spans.last_step[uk] + 1) : static_cast<double>(spans.end_ns[uk]);
      draw->AddRectFilled(ImVec2(static_cast<float>(view.x_of(x0)), view.plot.y),
                          ImVec2(static_cast<float>(view.x_of(x1)), view.plot.y + view.plot.height),
                          IM_COL32(120, 200, 255, 28));
    }
  }
  auto draw_end = [&](const SelectedEnd& end, ImU32 color) {
    const std::int32_t row = filter.row(end.process);
    if (steps_axis) {
      if (end.step >= 0) outline(draw, view, end.step, end.step + 1.0, row, color);
    } else if (end.end_ns > 0 || end.start_ns > 0) {
      outline(draw, view, static_cast<double>(end.start_ns), static_cast<double>(end.end_ns), row, color);
    }
  };
  if (s.partner) draw_end(*s.partner, IM_COL32(255, 200, 90, 255));
  draw_end(s.self, kSelectionColor);
  draw->PopClipRect();
}

}  // namespace weft::app
