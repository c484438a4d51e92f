#pragma once
// The Charm++/AMPI views of a Projections run (ampi-projections.txt §2–3):
// the PE view's utilization labels, λ and migration ribbons over the
// physical timeline; the virtual-rank lanes (rows = AMPI ranks, tinted by
// the PE they ran on); and the usage profile (per-PE stacked time per entry
// method, idle and overhead). All read the import-time summaries
// (summary/pe_usage.h) or range scans of virtual_ranks, never all events.
#include <imgui.h>

#include <optional>
#include <string>
#include <vector>

#include "app/timeline_data.h"
#include "app/timeline_panel.h"
#include "projections/virtual_ranks.h"
#include "store/sqlite.h"
#include "projections/projections_check.h"
#include "summary/pe_usage.h"
#include "view_transform.h"

namespace weft::app {

inline const ImU32 kMigrationColor = IM_COL32(0, 235, 255, 255);
inline const ImU32 kProfileIdleColor = IM_COL32(0, 0, 0, 255);
inline const ImU32 kProfileOverheadColor = IM_COL32(70, 70, 78, 255);
inline const ImU32 kProfileOtherColor = IM_COL32(200, 200, 200, 255);

// The PE view's numbers: busy % per PE, the run's percent imbalance λ.
struct PeViewSummary {
  db::PeUtilizationTable util;
  double imbalance_percent = 0;  // charm::percent_imbalance over util.busy
  std::vector<std::string> row_labels;  // "PE 3  87.5%", by process
};
// None for OTF2 runs and for runs imported before pe_utilization existed.
std::optional<PeViewSummary> read_pe_view_summary(db::Database& db, const TraceInfo& info);
std::string pe_view_title(const TraceInfo& info, const PeViewSummary& s);
// The busy and idle time of the PE whose label the mouse is over (window only).
void draw_pe_label_tooltip(const PeViewSummary& s, const render::ViewTransform& view, const TimelinePanel& panel);

// Ribbons from row from_pe to row to_pe at each migration's time, over the
// physical timeline (rows are PEs, all shown in order).
void draw_migration_ribbons(const render::ViewTransform& view, const std::vector<db::Migration>& migrations);

// The PE of each visible rank over the visible span, tinted per PE, with a
// marker at each migration (all of them); one pixel row samples one rank when ranks are
// thinner than a pixel, so drawing is bounded by the plot's pixels.
class VirtualRankLanes {
 public:
  VirtualRankLanes(db::Database& db, const TraceInfo& info);
  std::int64_t ranks() const { return ranks_; }
  TimelinePanel& panel() { return panel_; }
  // Reads the window of `view` when it changed and draws it with its frame and PE legend.
  void draw(const render::PixelRect& area, int framebuffer_width, int framebuffer_height, bool interactive);

 private:
  void load(const render::ViewTransform& view);
  void draw_lanes(const render::ViewTransform& view) const;
  void draw_pe_legend() const;

  db::Database& db_;
  const TraceInfo& info_;
  std::int64_t ranks_;
  TimelinePanel panel_;
  std::vector<ProcessIndex> identity_rows_;
  // The loaded window: ranks [vp0, vp1) every `stride`-th, times [t0, t1].
  std::int64_t vp0_ = -1, vp1_ = -1, stride_ = 0;
  double t0_ = -1, t1_ = -1;
  std::vector<db::VirtualRankSpan> spans_;
  std::vector<db::Migration> migrations_;
};

// The usage profile in `area`: one stacked bar per PE (per pixel column
// when PEs outnumber them), then the average bar; y in % of the run's span.
void draw_usage_profile(const render::PixelRect& area, const TraceInfo& info, const db::UsageProfile& profile,
                        const db::PeUtilizationTable& util);

}  // namespace weft::app
