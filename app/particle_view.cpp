#include "app/particle_view.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/overlay_style.h"
#include "app/timeline_panel.h"
#include "time_ticks.h"

namespace weft::app {

// The y axis's caption, under its labels at the panel's left edge.
constexpr const char* kAgeAxisCaption = "y: event age, log scale";

namespace {

// "1 ns", "10 µs", "100 ms", "1 s", ... for the powers of ten of the grid.
std::string power_of_ten_label(double d_ns) {
  static const char* const kUnits[] = {"ns", "\xc2\xb5s", "ms", "s"};
  int exponent = static_cast<int>(std::lround(std::log10(std::max(d_ns, 1.0))));
  int unit = std::min(exponent / 3, 3);
  int digits = exponent - 3 * unit;
  char text[32];
  std::snprintf(text, sizeof text, "%.0f %s", std::pow(10.0, digits), kUnits[unit]);
  return text;
}

}  // namespace

double default_particle_step_ns(TimeNs trace_end_ns) {
  return std::max(1.0, static_cast<double>(trace_end_ns) / 600.0);
}

ParticleView::ParticleView(db::WindowQuery& query, const TraceInfo& info, render::ParticlePath path)
    : query_(query),
      info_(info),
      renderer_(std::make_unique<render::ParticleRenderer>(path)),
      feed_(query, info.region_colors),
      history_(render::history_store_for(path)),
      mask_(render::particle_region_mask(info.regions)),
      colors_(info.region_colors) {
  for (std::int32_t r : info.legend_order)
    if (mask_[static_cast<std::size_t>(r)]) legend_.push_back(r);
  settings_.step_ns = default_particle_step_ns(info.meta.trace_end_ns);
  shown_processes_ = std::max<std::size_t>(info.processes.size(), 1);
  dmax_ns_ = static_cast<double>(std::max<TimeNs>(feed_.longest_duration(), 2));
}

ParticleView::~ParticleView() = default;

void ParticleView::set_region_color(std::int32_t region, render::Rgba8 color) {
  if (region < 0 || static_cast<std::size_t>(region) >= colors_.size()) return;
  colors_[static_cast<std::size_t>(region)] = color;
  feed_.set_color(region, color);
  field_.recolor(region, color);
}

render::ParticleScale ParticleView::scale() const {
  render::ParticleScale s;
  s.dmax_ns = dmax_ns_;
  s.fade_ns = std::max(0.0, settings_.fade_s) * std::max(settings_.frames_per_s, 1e-3) * settings_.step_ns;
  s.first_process = first_process_;
  s.process_count = shown_processes_;
  return s;
}

void ParticleView::set_processes(ProcessIndex first, ProcessIndex last) {
  const auto count = static_cast<ProcessIndex>(std::max<std::size_t>(info_.processes.size(), 1));
  first = std::clamp<ProcessIndex>(first, 0, count - 1);
  last = std::clamp<ProcessIndex>(last, first, count - 1);
  const auto shown = static_cast<std::size_t>(last - first) + 1;
  if (first == first_process_ && shown == shown_processes_) return;
  first_process_ = first;
  shown_processes_ = shown;
  // The history's pixels belong to the old segments.
  history_.clear();
  jump_to(now_);
}

void ParticleView::set_area(const render::PixelRect& area) {
  area_ = area;
  layout_ = render::particle_layout(area);
  const int w = static_cast<int>(layout_.plot.width);
  const int h = static_cast<int>(layout_.plot.height);
  if (w != history_.width() || h != history_.height()) history_.resize(w, h);
}

void ParticleView::play_frame() {
  play_to(now_ + static_cast<TimeNs>(std::llround(std::max(settings_.step_ns, 1.0))));
}

void ParticleView::play_to(TimeNs t) {
  if (t < feed_.now()) {
    jump_to(t);
    return;
  }
  feed_.advance(t, scale(), field_, &history_);
  now_ = t;
}

void ParticleView::jump_to(TimeNs t) {
  feed_.seek(t, scale(), field_);
  now_ = t;
}

void ParticleView::replay_to(TimeNs t) {
  history_.clear();
  feed_.rewind(field_);
  play_to(t);
}

void ParticleView::draw(int framebuffer_width, int framebuffer_height, bool hover) {
  // The plot's own pixels go straight into the framebuffer, under the ImGui text.
  const render::PixelRect& plot = layout_.plot;
  renderer_->draw(plot, framebuffer_width, framebuffer_height, field_, now_, scale(), history_, settings_.omin);
  draw_axes();
  draw_segments();
  draw_legend();
  if (hover) draw_tooltip();
}

void ParticleView::draw_axes() const {
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  const render::PixelRect& plot = layout_.plot;
  const float line = ImGui::GetTextLineHeight();
  char title[256];
  std::snprintf(title, sizeof title, "%s  \xc2\xb7  particles  \xc2\xb7  t = %s  \xc2\xb7  %s live particles",
                info_.file_name.c_str(), render::format_duration(static_cast<double>(now_)).c_str(),
                thousands(static_cast<std::int64_t>(field_.size())).c_str());
  draw->AddText(ImVec2(area_.x + kMargin, area_.y + 0.5f * (render::kParticleTitlePx - line)), kTextColor, title);
  // Powers of ten on the log scale, skipping lines too close for their label
  // (§3.2.1: "the smallest distance between them is enough to allow for a label").
  const float top = render::particle_px_y(plot, 1.0);
  const float base = render::particle_px_y(plot, 0.0);
  float last_y = 1e9f;
  for (double d : render::duration_grid_ns(dmax_ns_)) {
    const float y = render::particle_px_y(plot, render::log_age_share(d, dmax_ns_)) + 0.5f;
    if (last_y - y < line + 2.0f || y - top < line + 2.0f) continue;
    draw->AddLine(ImVec2(plot.x, y), ImVec2(plot.x + plot.width, y), kGridColor);
    const std::string label = power_of_ten_label(d);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    draw->AddText(ImVec2(plot.x - w - 6.0f, y - 0.5f * line), kDimTextColor, label.c_str());
    last_y = y;
  }
  // The bold ceiling (d_max) and floor lines.
  // Just outside the plot's first and last rows, so they never cover a particle.
  draw->AddLine(ImVec2(plot.x, top - 0.5f), ImVec2(plot.x + plot.width, top - 0.5f), kAxisColor, 1.0f);
  draw->AddLine(ImVec2(plot.x, base + 1.5f), ImVec2(plot.x + plot.width, base + 1.5f), kAxisColor, 1.0f);
  const std::string max_label = render::format_duration(dmax_ns_);
  const float mw = ImGui::CalcTextSize(max_label.c_str()).x;
  draw->AddText(ImVec2(plot.x - mw - 6.0f, top - 0.5f * line), kTextColor, max_label.c_str());
  // The y axis's name sits under its labels, left of the process axis's name.
  draw->AddText(ImVec2(area_.x + 4.0f, layout_.segments.y + layout_.segments.height + line + 4.0f), kTextColor,
                kAgeAxisCaption);
}

void ParticleView::draw_segments() const {
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  const render::PixelRect& plot = layout_.plot;
  const render::PixelRect& strip = layout_.segments;
  const auto count = static_cast<std::int64_t>(shown_processes_);
  const auto base = static_cast<std::int64_t>(first_process_);
  const double segment = plot.width / static_cast<double>(count);
  // Segments narrower than a label are shown in groups of 1, 2, 5, 10, ...
  // processes (§3.2.1: "each segment corresponds to a set of processes").
  const float label_px = ImGui::CalcTextSize(std::to_string(base + count - 1).c_str()).x + 14.0f;
  std::int64_t group = 1;
  for (std::int64_t mult = 1; group * segment < label_px && group < count; mult *= 10)
    for (std::int64_t g : {1, 2, 5})
      if (group * segment < label_px) group = std::min(count, g * mult);
  const float line = ImGui::GetTextLineHeight();
  for (std::int64_t first = 0, k = 0; first < count; first += group, ++k) {
    const auto x0 = static_cast<float>(plot.x + static_cast<double>(first) * segment);
    const auto x1 = static_cast<float>(plot.x + static_cast<double>(std::min(first + group, count)) * segment);
    draw->AddRectFilled(ImVec2(x0, strip.y), ImVec2(x1, strip.y + strip.height),
                        k % 2 ? IM_COL32(90, 90, 100, 255) : IM_COL32(150, 150, 160, 255));
    if (first > 0) draw->AddLine(ImVec2(x0, plot.y), ImVec2(x0, plot.y + plot.height), IM_COL32(255, 255, 255, 16));
    // A last group too narrow for its label keeps it off the legend's column.
    const std::string label = std::to_string(base + first);
    if (x0 + 2.0f + ImGui::CalcTextSize(label.c_str()).x <= plot.x + plot.width + 4.0f || first == 0)
      draw->AddText(ImVec2(x0 + 2.0f, strip.y + strip.height + 2.0f), kDimTextColor, label.c_str());
  }
  char shown[64] = "";
  if (count < static_cast<std::int64_t>(info_.processes.size()))
    std::snprintf(shown, sizeof shown, " of %zu", info_.processes.size());
  char axis[160];
  if (group == 1)
    std::snprintf(axis, sizeof axis, "process (%lld%s, one segment each)", static_cast<long long>(count), shown);
  else
    std::snprintf(axis, sizeof axis, "process (%lld%s, labelled every %lld)", static_cast<long long>(count), shown,
                  static_cast<long long>(group));
  const float w = ImGui::CalcTextSize(axis).x;
  // Centred under the plot, but never over the y axis's caption on its left
  // (they share a line; a narrow panel pushes this one right).
  const float after_caption = area_.x + 4.0f + ImGui::CalcTextSize(kAgeAxisCaption).x + line;
  draw->AddText(ImVec2(std::max(plot.x + 0.5f * (plot.width - w), after_caption), strip.y + strip.height + line + 4.0f),
                kTextColor, axis);
}

void ParticleView::draw_legend() const {
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  const render::PixelRect& rect = layout_.legend;
  const float line = ImGui::GetTextLineHeight();
  const float swatch = ImGui::GetFontSize() - 4.0f;
  const float step = line + 3.0f;
  float y = rect.y;
  draw->AddText(ImVec2(rect.x, y), kTextColor, "function");
  y += step + 2.0f;
  const std::vector<std::int32_t>& order = legend_;
  // About 25 colors are all one can tell apart (§3.2.1); the rest are counted.
  constexpr std::size_t kMaxEntries = 25;
  const auto slots = static_cast<std::size_t>(std::max(0.0f, (rect.y + rect.height - y) / step));
  std::size_t shown = std::min({order.size(), kMaxEntries, slots});
  if (shown < order.size() && shown > 0) --shown;
  std::string scratch;
  for (std::size_t i = 0; i < shown; ++i, y += step) {
    const auto r = static_cast<std::size_t>(order[i]);
    const float mid = y + 0.5f * line;
    draw->AddRectFilled(ImVec2(rect.x, mid - 0.5f * swatch), ImVec2(rect.x + swatch, mid + 0.5f * swatch),
                        im_color(colors_[r]));
    const float text_x = rect.x + swatch + 6.0f;
    draw->AddText(ImVec2(text_x, y), kTextColor,
                  fit_text(info_.regions.name[r], rect.x + rect.width - text_x, scratch).c_str());
  }
  if (shown < order.size()) {
    char more[48];
    std::snprintf(more, sizeof more, "+%zu more", order.size() - shown);
    draw->AddText(ImVec2(rect.x, y), kDimTextColor, more);
    y += step;
  }
  y += step;
  if (y + 2 * step < rect.y + rect.height) {
    draw->AddText(ImVec2(rect.x, y), kDimTextColor, "background:");
    draw->AddText(ImVec2(rect.x, y + step), kDimTextColor, "history (log density)");
  }
}

void ParticleView::draw_tooltip() const {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const render::PixelRect& plot = layout_.plot;
  if (!plot.contains(mouse.x, mouse.y)) return;
  const render::ParticleScale s = scale();
  const int w = history_.width(), h = history_.height();
  std::size_t best = field_.size();
  float best_d2 = 5.0f * 5.0f;
  for (std::size_t i = 0; i < field_.size(); ++i) {
    if (field_.start_ns[i] > now_) continue;
    const render::ParticlePixel p = render::particle_pixel(field_, i, now_, s, w, h);
    const float dx = plot.x + static_cast<float>(p.x) + 0.5f - mouse.x;
    const float dy = plot.y + static_cast<float>(p.y) + 0.5f - mouse.y;
    if (dx * dx + dy * dy < best_d2) best_d2 = dx * dx + dy * dy, best = i;
  }
  if (best == field_.size()) return;
  const auto region = static_cast<std::size_t>(field_.region[best]);
  const auto process = static_cast<std::size_t>(field_.process[best]);
  ImGui::BeginTooltip();
  ImGui::Text("%s", info_.regions.name[region].c_str());
  ImGui::Separator();
  ImGui::Text("process   %s", info_.processes.name[process].c_str());
  ImGui::Text("start     %s", render::format_duration(static_cast<double>(field_.start_ns[best])).c_str());
  ImGui::Text("end       %s", render::format_duration(static_cast<double>(field_.end_ns[best])).c_str());
  ImGui::Text("duration  %s",
              render::format_duration(static_cast<double>(field_.end_ns[best] - field_.start_ns[best])).c_str());
  ImGui::Text("event id  %lld", static_cast<long long>(field_.id[best]));
  ImGui::EndTooltip();
}

}  // namespace weft::app
