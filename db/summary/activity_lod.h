#pragma once
// Level of detail for the physical timeline: what a zoomed-out view shows
// instead of reading every event of its window (docs/schema.md,
// "activity_lod"). The run is cut into cells of (a block of 2^p processes) ×
// (a time bin of bin_ns · 4^t); each cell keeps the function class that was on
// top of the call stacks for most of its time (start_histogram.h's classes)
// and how much of it was covered by any event. A window of any size reads
// about one cell per pixel, whatever the number of events under it.
//
// Levels: p from `min_plevel` (at most kMaxLodBlocks blocks) up to one block
// for all processes; t from 0 (kLodBins bins over the run) while a level has at
// least kMinLodBins bins. Finer cells than level (min_plevel, 0) are never
// needed: a view that small reads the events themselves.
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "store/sqlite.h"
#include "summary/lod_tiles.h"

namespace weft::db {

constexpr std::int64_t kMaxLodBlocks = 1024;
constexpr std::int64_t kLodBins = 16384;
constexpr std::int64_t kMinLodBins = 64;

struct LodLayout {
  std::int64_t processes = 0;
  int min_plevel = 0;
  int max_plevel = 0;
  int max_tlevel = 0;
  TimeNs bin_ns = 1;         // bin width at t = 0
  std::int64_t bins = 0;     // bins at t = 0
  std::int64_t block_size(int p) const { return std::int64_t{1} << p; }
  std::int64_t blocks(int p) const { return (processes + block_size(p) - 1) / block_size(p); }
  TimeNs bin_width(int t) const { return bin_ns << (2 * t); }
  std::int64_t bins_at(int t) const { return (bins + (std::int64_t{1} << (2 * t)) - 1) >> (2 * t); }
};

// Chooses the levels for a run of `processes` processes ending at `trace_end_ns`.
LodLayout plan_lod_layout(std::int64_t processes, TimeNs trace_end_ns);

// Scans every event (one process at a time) and (re)writes activity_lod and
// its meta facts in one transaction.
void write_activity_lod(Database& db);
bool has_activity_lod(Database& db);

// Cells of one level in a window: a CellGrid (lod_tiles.h) of 2-byte cells,
// the StartClass on top of the call stacks for most of the cell's time plus
// one (0: no event in the cell) and how busy the cell was (0..255: the share
// of its process-time covered by any event).
struct LodCells {
  static constexpr int kCellBytes = 2;
  int plevel = 0;
  int tlevel = 0;
  CellGrid grid;
};

class ActivityLod {
 public:
  // Reads the layout from meta; throws weft::Error naming the file when it is
  // missing or malformed.
  explicit ActivityLod(Database& db);
  const LodLayout& layout() const { return layout_; }

  // The coarsest levels whose cells are still at most `max_px` pixels on each
  // side at `px_per_ns` and `px_per_row` (clamped to the stored levels).
  std::pair<int, int> choose_levels(double px_per_ns, double px_per_row, double max_px) const;

  // Cells of level (p, t) overlapping [t0, t1] × processes [p0, p1].
  void read(int plevel, int tlevel, TimeNs t0, TimeNs t1, ProcessIndex p0, ProcessIndex p1,
            LodCells& out);

 private:
  LodLayout layout_;
  TileReader tiles_;
};

}  // namespace weft::db
