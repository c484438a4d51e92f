#include "app/charm_views.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/overlay_style.h"
#include "app/timeline_frame.h"
#include "charm/task_metrics.h"
#include "common/error.h"
#include "projections/virtual_rank_query.h"
#include "region_palette.h"
#include "time_ticks.h"

namespace weft::app {

namespace {

std::string percent_text(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", p);
  return buf;
}

double busy_percent(const db::PeUtilizationTable& u, std::size_t pe) {
  return u.span_ns > 0 ? 100.0 * static_cast<double>(u.busy[pe]) / static_cast<double>(u.span_ns) : 0.0;
}

ImU32 pe_tint(std::int64_t pe) { return im_color(render::categorical_color(static_cast<std::size_t>(pe))); }

void fill(ImDrawList* draw, float x0, float y0, float x1, float y1, ImU32 color) {
  draw->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), color);
}

// One legend line: a swatch and its text.
float legend_line(ImDrawList* draw, float x, float y, float width, ImU32 color, const std::string& text) {
  const float line = ImGui::GetTextLineHeight();
  fill(draw, x, y + 2, x + line - 4, y + line - 2, color);
  draw->AddRect(ImVec2(x, y + 2), ImVec2(x + line - 4, y + line - 2), kAxisColor);
  std::string scratch;
  draw->AddText(ImVec2(x + line + 2, y), kTextColor, fit_text(text, width - line - 2, scratch).c_str());
  return y + line + 2;
}

}  // namespace

// ---- PE view -------------------------------------------------------------

std::optional<PeViewSummary> read_pe_view_summary(db::Database& db, const TraceInfo& info) {
  if (!db::is_projections_run(db) || !db::has_pe_usage(db)) return std::nullopt;
  PeViewSummary s;
  s.util = db::read_pe_utilization(db);
  if (s.util.busy.size() != info.processes.size())
    throw Error(db.path(), "pe_utilization has " + std::to_string(s.util.busy.size()) + " PEs, processes " +
                               std::to_string(info.processes.size()));
  s.imbalance_percent = charm::percent_imbalance(s.util.busy);
  s.row_labels.reserve(s.util.busy.size());
  for (std::size_t p = 0; p < s.util.busy.size(); ++p)
    s.row_labels.push_back(info.processes.name[p] + "  " + percent_text(busy_percent(s.util, p)));
  return s;
}

std::string pe_view_title(const TraceInfo& info, const PeViewSummary& s) {
  // The UI font has no Greek glyphs: λ is spelt out.
  return physical_title(info) + "  \xc2\xb7  percent imbalance lambda = " + percent_text(s.imbalance_percent);
}

void draw_pe_label_tooltip(const PeViewSummary& s, const render::ViewTransform& view, const TimelinePanel& panel) {
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (m.x >= view.plot.x || m.y < view.plot.y || m.y >= view.plot.y + view.plot.height) return;
  const auto row = static_cast<std::int64_t>(std::floor(view.row_at(m.y)));
  if (row < 0 || row >= static_cast<std::int64_t>(panel.row_count())) return;
  const auto pe = static_cast<std::size_t>(panel.process_of_row(row));
  ImGui::SetTooltip("PE %zu\nbusy %s (%s of the run)\nidle %s\noverhead %s", pe,
                    render::format_duration(static_cast<double>(s.util.busy[pe])).c_str(),
                    percent_text(busy_percent(s.util, pe)).c_str(),
                    render::format_duration(static_cast<double>(s.util.idle[pe])).c_str(),
                    render::format_duration(static_cast<double>(
                                                std::max<TimeNs>(0, s.util.span_ns - s.util.busy[pe] - s.util.idle[pe])))
                        .c_str());
}

void draw_migration_ribbons(const render::ViewTransform& view, const std::vector<db::Migration>& migrations) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  draw->PushClipRect(ImVec2(view.plot.x, view.plot.y),
                     ImVec2(view.plot.x + view.plot.width, view.plot.y + view.plot.height));
  // A band leaving the old PE's row and reaching the new one's, slanted by
  // a few pixels so that it reads as a move, with a dot where it arrives.
  const float half = std::clamp(static_cast<float>(0.15 * view.px_per_row()), 1.5f, 4.0f);
  for (const db::Migration& m : migrations) {
    const auto x = static_cast<float>(view.x_of(static_cast<double>(m.time_ns)));
    const auto y0 = static_cast<float>(view.y_of(m.from_pe + 0.5));
    const auto y1 = static_cast<float>(view.y_of(m.to_pe + 0.5));
    draw->AddQuadFilled(ImVec2(x - half, y0), ImVec2(x + half, y0), ImVec2(x + half, y1), ImVec2(x - half, y1),
                        kMigrationColor);
    draw->AddCircleFilled(ImVec2(x, y1), half + 1.5f, kMigrationColor);
  }
  draw->PopClipRect();
}

// ---- Virtual-rank lanes ---------------------------------------------------

VirtualRankLanes::VirtualRankLanes(db::Database& db, const TraceInfo& info)
    : db_(db), info_(info), ranks_(db::count_virtual_ranks(db)),
      panel_(info, TimelineAxis::Time, static_cast<double>(info.meta.trace_end_ns)) {
  if (ranks_ <= 0)
    throw Error(db.path(), "the run has no AMPI virtual ranks (no AMPI function brackets); the vps view needs an AMPI run");
  identity_rows_.resize(static_cast<std::size_t>(ranks_));
  std::vector<std::string> labels(static_cast<std::size_t>(ranks_));
  for (std::int64_t v = 0; v < ranks_; ++v) {
    identity_rows_[static_cast<std::size_t>(v)] = static_cast<ProcessIndex>(v);
    labels[static_cast<std::size_t>(v)] = "VP " + std::to_string(v);
  }
  panel_.set_row_labels(std::move(labels));
  panel_.set_rows(&identity_rows_);
  panel_.fit();
  panel_.set_title(info.file_name + "  \xc2\xb7  virtual ranks (AMPI)  \xc2\xb7  " + thousands(ranks_) +
                   " ranks, tinted by PE; markers: migrations");
}

void VirtualRankLanes::load(const render::ViewTransform& view) {
  const auto vp0 = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor(view.row0)));
  const auto vp1 = std::min<std::int64_t>(ranks_, static_cast<std::int64_t>(std::ceil(view.row1)));
  // Ranks thinner than a pixel: one rank per pixel row is read and drawn.
  const auto stride = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(1.0 / view.px_per_row())));
  if (vp0 == vp0_ && vp1 == vp1_ && stride == stride_ && view.t0_ns == t0_ && view.t1_ns == t1_) return;
  vp0_ = vp0, vp1_ = vp1, stride_ = stride, t0_ = view.t0_ns, t1_ = view.t1_ns;
  const auto t0 = static_cast<TimeNs>(std::floor(view.t0_ns)), t1 = static_cast<TimeNs>(std::ceil(view.t1_ns));
  spans_.clear();
  if (stride == 1) {
    spans_ = db::read_rank_spans(db_, vp0, vp1, t0, t1);
  } else {
    for (std::int64_t v = vp0; v < vp1; v += stride) {
      std::vector<db::VirtualRankSpan> one = db::read_rank_spans(db_, v, v + 1, t0, t1);
      spans_.insert(spans_.end(), one.begin(), one.end());
    }
  }
  // Every migration of the visible ranks, sampled or not: a migration is the
  // rare event the lanes are for, so none may vanish when zoomed out.
  migrations_.clear();
  for (const db::Migration& m : db::read_migrations(db_, t0, t1))
    if (m.vp >= vp0 && m.vp < vp1) migrations_.push_back(m);
}

void VirtualRankLanes::draw_lanes(const render::ViewTransform& view) const {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  draw->PushClipRect(ImVec2(view.plot.x, view.plot.y),
                     ImVec2(view.plot.x + view.plot.width, view.plot.y + view.plot.height));
  const double row_px = view.px_per_row();
  // Rows a few pixels tall keep a gap so that neighbouring ranks on one PE
  // stay apart; a sampled rank fills its pixel row.
  const double gap = row_px >= 4 ? std::min(2.0, 0.15 * row_px) : 0.0;
  const double thick = std::max(1.0, static_cast<double>(stride_) * row_px);
  for (const db::VirtualRankSpan& s : spans_) {
    const double y = view.y_of(static_cast<double>(s.vp));
    const auto x0 = static_cast<float>(std::max(view.x_of(static_cast<double>(s.start_ns)), static_cast<double>(view.plot.x)));
    const auto x1 = static_cast<float>(std::min(view.x_of(static_cast<double>(s.end_ns)),
                                                static_cast<double>(view.plot.x + view.plot.width)));
    fill(draw, x0, static_cast<float>(y + gap), std::max(x1, x0 + 1.0f), static_cast<float>(y + std::max(thick - gap, 1.0)),
         pe_tint(s.pe));
  }
  // The marker: a white tick across the lane where the tint changes (of
  // ranks not sampled, across the pixel row of the rank drawn for them).
  for (const db::Migration& m : migrations_) {
    const auto x = static_cast<float>(view.x_of(static_cast<double>(m.time_ns)));
    const std::int64_t drawn_vp = vp0_ + (m.vp - vp0_) / stride_ * stride_;
    // At least 8 px tall to be seen on sub-pixel lanes, kept inside the plot
    // (the last rank's marker grows upwards).
    const double height = std::max(thick, 8.0);
    const double bottom = static_cast<double>(view.plot.y + view.plot.height);
    const double y = std::min(view.y_of(static_cast<double>(drawn_vp)), bottom - height);
    draw->AddLine(ImVec2(x, static_cast<float>(y)), ImVec2(x, static_cast<float>(y + height)), kCursorColor, 1.5f);
  }
  draw->PopClipRect();
}

void VirtualRankLanes::draw_pe_legend() const {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const render::PixelRect& r = panel_.legend_rect();
  const float line = ImGui::GetTextLineHeight();
  float y = r.y;
  draw->AddText(ImVec2(r.x, y), kTextColor, "PE (tint)");
  y += line + 4;
  const auto pes = static_cast<std::int64_t>(info_.processes.size());
  const auto fit = static_cast<std::int64_t>(std::max(1.0f, (r.height - 2 * line) / (line + 2)));
  for (std::int64_t p = 0; p < std::min(pes, fit); ++p)
    y = legend_line(draw, r.x, y, r.width, pe_tint(p), info_.processes.name[static_cast<std::size_t>(p)]);
  if (pes > fit) {
    // Appended, not "+" + ...: GCC 12 warns (-Wrestrict, a false positive) on that form.
    std::string more = thousands(pes - fit);
    more.insert(0, 1, '+');
    more += " PEs";
    draw->AddText(ImVec2(r.x, y), kDimTextColor, more.c_str());
  }
  y += line + 4;
  fill(draw, r.x + 0.5f * (line - 4), y + 1, r.x + 0.5f * (line - 4) + 2, y + line - 1, kCursorColor);
  draw->AddText(ImVec2(r.x + line + 2, y), kTextColor, "migration");
}

void VirtualRankLanes::draw(const render::PixelRect& area, int framebuffer_width, int framebuffer_height,
                            bool interactive) {
  const float legend = ImGui::CalcTextSize("PE 00000  ").x + ImGui::GetTextLineHeight();
  render::ViewTransform view = panel_.layout(area, framebuffer_width, framebuffer_height, legend);
  if (interactive && panel_.handle_input(view))
    view = panel_.layout(area, framebuffer_width, framebuffer_height, legend);
  load(view);
  panel_.draw_frame(view);
  draw_lanes(view);
  draw_pe_legend();
}

// ---- Usage profile ---------------------------------------------------------

void draw_usage_profile(const render::PixelRect& area, const TraceInfo& info, const db::UsageProfile& profile,
                        const db::PeUtilizationTable& util) {
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  const float line = ImGui::GetTextLineHeight();
  const auto pes = static_cast<std::int64_t>(util.busy.size());
  const std::size_t entries = profile.entries.size();
  std::string scratch;

  // Legend names and colors: the kept entries, "other", overhead, idle.
  std::vector<std::string> names;
  std::vector<ImU32> colors;
  for (std::int64_t region : profile.entries) {
    if (region == db::kOtherEntry) {
      names.push_back("other entry methods");
      colors.push_back(kProfileOtherColor);
      continue;
    }
    const std::int32_t i = info.regions.index_of(region);
    names.push_back(i >= 0 ? info.regions.name[static_cast<std::size_t>(i)] : "entry " + std::to_string(region));
    colors.push_back(im_color(i >= 0 ? info.region_colors[static_cast<std::size_t>(i)] : kUnknownRegionColor));
  }
  names.push_back("overhead (not in entry or idle)");
  colors.push_back(kProfileOverheadColor);
  names.push_back("idle");
  colors.push_back(kProfileIdleColor);

  const float legend_w = std::min(0.3f * area.width, 320.0f);
  const float gutter = ImGui::CalcTextSize("100%").x + 2 * kMargin + line;
  // Rows above the plot: the title, then the y axis title.
  const render::PixelRect plot{area.x + gutter, area.y + kMargin + 3 * line,
                               std::max(area.width - gutter - legend_w - 2 * kMargin, 10.0f),
                               std::max(area.height - 5 * line - 3 * kMargin - kTickLength, 10.0f)};
  const std::string title = info.file_name + "  \xc2\xb7  usage profile  \xc2\xb7  " + thousands(pes) +
                            " PEs, time per entry method in % of the run (" +
                            render::format_duration(static_cast<double>(util.span_ns)) + ")";
  draw->AddText(ImVec2(area.x + kMargin, area.y + kMargin), kTextColor,
                fit_text(title, area.width - 2 * kMargin, scratch).c_str());

  // Columns: the PEs, a gap, then the average bar. With fewer PEs than
  // pixels each PE gets a bar; with more, each pixel column averages the
  // PEs that fall in it (a sub-pixel bar cannot be drawn).
  const float avg_w = std::max(12.0f, std::min(60.0f, 0.06f * plot.width));
  const float pe_w = plot.width - avg_w - 12.0f;
  const auto columns = std::max<std::int64_t>(1, std::min<std::int64_t>(pes, static_cast<std::int64_t>(pe_w)));
  const float col_w = pe_w / static_cast<float>(columns);
  const float bar_gap = col_w >= 4 ? std::min(0.2f * col_w, 6.0f) : 0.0f;
  const double span = static_cast<double>(std::max<TimeNs>(util.span_ns, 1));
  std::vector<double> share(entries + 2);
  std::vector<double> mean(entries + 2, 0.0);
  auto add_pe = [&](std::int64_t p, std::vector<double>& into) {
    double accounted = 0;
    for (std::size_t e = 0; e < entries; ++e) {
      const double t = static_cast<double>(profile.at(static_cast<std::int32_t>(p), e));
      into[e] += t / span;
      accounted += t;
    }
    const double idle = static_cast<double>(util.idle[static_cast<std::size_t>(p)]);
    into[entries] += std::max(0.0, span - accounted - idle) / span;
    into[entries + 1] += idle / span;
  };
  auto draw_stack = [&](float x0, float x1, const std::vector<double>& s) {
    double acc = 0;
    for (std::size_t k = 0; k < s.size(); ++k) {
      const double a = std::min(acc, 1.0), b = std::min(acc + s[k], 1.0);
      acc += s[k];
      if (b <= a) continue;
      const auto ytop = static_cast<float>(plot.y + plot.height * (1.0 - b));
      const auto ybot = static_cast<float>(plot.y + plot.height * (1.0 - a));
      fill(draw, x0, ytop, x1, ybot, colors[k]);
    }
  };
  for (std::int64_t c = 0; c < columns; ++c) {
    const std::int64_t p0 = c * pes / columns, p1 = std::max(p0 + 1, (c + 1) * pes / columns);
    std::fill(share.begin(), share.end(), 0.0);
    for (std::int64_t p = p0; p < p1; ++p) add_pe(p, share);
    for (double& v : share) v /= static_cast<double>(p1 - p0);
    const float x0 = plot.x + static_cast<float>(c) * col_w;
    draw_stack(x0 + 0.5f * bar_gap, x0 + col_w - 0.5f * bar_gap, share);
  }
  for (std::int64_t p = 0; p < pes; ++p) add_pe(p, mean);
  for (double& v : mean) v /= static_cast<double>(std::max<std::int64_t>(pes, 1));
  const float avg_x = plot.x + plot.width - avg_w;
  draw_stack(avg_x, plot.x + plot.width, mean);

  // Axes: y in % of the run, x the PE numbers and "avg".
  draw->AddLine(ImVec2(plot.x - 1, plot.y), ImVec2(plot.x - 1, plot.y + plot.height), kAxisColor);
  draw->AddLine(ImVec2(plot.x - 1, plot.y + plot.height), ImVec2(plot.x + plot.width, plot.y + plot.height), kAxisColor);
  for (int pct = 0; pct <= 100; pct += 20) {
    const float y = plot.y + plot.height * (1.0f - static_cast<float>(pct) / 100.0f);
    const std::string label = std::to_string(pct) + "%";
    draw->AddLine(ImVec2(plot.x - 1 - kTickLength, y), ImVec2(plot.x - 1, y), kAxisColor);
    draw->AddLine(ImVec2(plot.x, y), ImVec2(plot.x + plot.width, y), kGridColor);
    draw->AddText(ImVec2(plot.x - kTickLength - 4 - ImGui::CalcTextSize(label.c_str()).x, y - 0.5f * line),
                  kTextColor, label.c_str());
  }
  const float tick_y = plot.y + plot.height;
  const float min_spacing = ImGui::CalcTextSize("000000").x;
  // Label every k-th PE, k = 1, 2 or 5 x 10^n, so labels neither overlap nor look random.
  const double want = std::ceil(min_spacing / (pe_w / static_cast<float>(std::max<std::int64_t>(pes, 1))));
  std::int64_t every = 1;
  for (std::int64_t decade = 1; every < want; decade *= 10)
    for (std::int64_t m : {1, 2, 5})
      if (every < want) every = m * decade;
  for (std::int64_t p = 0; p < pes; p += every) {
    const float x = plot.x + (static_cast<float>(p) + 0.5f) * pe_w / static_cast<float>(pes);
    const std::string label = std::to_string(p);
    draw->AddLine(ImVec2(x, tick_y), ImVec2(x, tick_y + kTickLength), kAxisColor);
    draw->AddText(ImVec2(x - 0.5f * ImGui::CalcTextSize(label.c_str()).x, tick_y + kTickLength + 2), kTextColor,
                  label.c_str());
  }
  draw->AddText(ImVec2(avg_x + 0.5f * avg_w - 0.5f * ImGui::CalcTextSize("avg").x, tick_y + kTickLength + 2),
                kTextColor, "avg");
  draw->AddText(ImVec2(plot.x + 0.5f * pe_w - 0.5f * ImGui::CalcTextSize("PE").x, tick_y + kTickLength + 4 + line),
                kTextColor, "PE");
  // The y axis title, written above the axis (ImGui draws no rotated text).
  draw->AddText(ImVec2(area.x + kMargin, area.y + kMargin + line + 4), kDimTextColor, "% of run");

  // Legend, top entries first as stacked bottom-up.
  const float lx = plot.x + plot.width + 2 * kMargin;
  float y = plot.y;
  draw->AddText(ImVec2(lx, y), kTextColor, "time in (bottom to top)");
  y += line + 4;
  for (std::size_t k = 0; k < names.size(); ++k) y = legend_line(draw, lx, y, legend_w - kMargin, colors[k], names[k]);
}

}  // namespace weft::app
