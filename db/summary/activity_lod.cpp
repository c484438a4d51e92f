#include "summary/activity_lod.h"

#include <algorithm>
#include <array>
#include <string>

#include "common/error.h"
#include "common/int_math.h"
#include "store/meta.h"
#include "store/record_scan.h"
#include "summary/lod_tiles.h"
#include "summary/start_histogram.h"

namespace weft::db {

namespace {

// One level in memory, in the tiles' layout: per block, per bin, two bytes:
// the dominant class + 1 (0: nothing ran) and the busy share.
struct LodGrid {
  std::int64_t blocks = 0;
  std::int64_t bins = 0;
  std::vector<std::uint8_t> cells;
  // Empty cells everywhere.
  void resize(std::int64_t b, std::int64_t n) {
    blocks = b;
    bins = n;
    cells.assign(static_cast<std::size_t>(b * n) * 2, 0);
  }
  // Any content: for a level whose every cell is about to be written.
  void reshape(std::int64_t b, std::int64_t n) {
    blocks = b;
    bins = n;
    cells.resize(static_cast<std::size_t>(b * n) * 2);
  }
  std::uint8_t* cell(std::int64_t block, std::int64_t bin) {
    return cells.data() + static_cast<std::size_t>(block * bins + bin) * 2;
  }
  const std::uint8_t* row(std::int64_t block) const { return cells.data() + static_cast<std::size_t>(block * bins) * 2; }
};

// A coarser cell from up to 4 finer ones: the class whose cells were
// busiest in total (a cell votes with its busy share; ties go to the class
// listed first, MPI before compute), and the mean busy share.
inline void vote(const std::uint8_t* const* cells, int n, std::uint8_t* out) {
  std::uint32_t busy = 0, best_weight = 0;
  int best = 0;
  for (int a = 0; a < n; ++a) {
    busy += cells[a][1];
    const int k = cells[a][0];
    if (k == 0 || k > kStartClasses) continue;
    bool counted = false;  // the class of an earlier cell: already weighed
    for (int b = 0; b < a && !counted; ++b) counted = cells[b][0] == k;
    if (counted) continue;
    std::uint32_t weight = 0;
    for (int b = a; b < n; ++b)
      if (cells[b][0] == k) weight += cells[b][1];
    if (weight > best_weight || (weight == best_weight && weight > 0 && k < best)) {
      best = k;
      best_weight = weight;
    }
  }
  out[0] = static_cast<std::uint8_t>(best);
  out[1] = static_cast<std::uint8_t>(busy / static_cast<std::uint32_t>(n));
}

// Quarters the bins of `fine` into `g` (every cell written): each cell votes
// over 4 consecutive bins.
void coarser_in_time(const LodGrid& fine, LodGrid& g) {
  g.reshape(fine.blocks, (fine.bins + 3) / 4);
  for (std::int64_t b = 0; b < g.blocks; ++b) {
    const std::uint8_t* in = fine.row(b);
    std::uint8_t* out = g.cell(b, 0);
    for (std::int64_t i = 0; i < g.bins; ++i, out += 2) {
      const std::uint8_t* cells[4];
      int n = 0;
      for (std::int64_t fi = 4 * i; fi < std::min(4 * i + 4, fine.bins); ++fi) cells[n++] = in + 2 * fi;
      vote(cells, n, out);
    }
  }
}

// Halves the blocks of `fine` into `g`: each cell votes over 2 blocks' cells of its bin.
void coarser_in_processes(const LodGrid& fine, LodGrid& g) {
  g.reshape((fine.blocks + 1) / 2, fine.bins);
  for (std::int64_t b = 0; b < g.blocks; ++b) {
    const std::uint8_t* top = fine.row(2 * b);
    const std::uint8_t* bottom = 2 * b + 1 < fine.blocks ? fine.row(2 * b + 1) : nullptr;
    std::uint8_t* out = g.cell(b, 0);
    for (std::int64_t i = 0; i < g.bins; ++i, out += 2) {
      const std::uint8_t* cells[2] = {top + 2 * i, bottom ? bottom + 2 * i : nullptr};
      vote(cells, bottom ? 2 : 1, out);
    }
  }
}

// Accumulates the top-of-stack time of the processes of one block per bin and
// class, then turns it into one row of the finest grid.
class BlockAccumulator {
 public:
  explicit BlockAccumulator(const LodLayout& layout)
      : layout_(layout), time_(static_cast<std::size_t>(layout.bins) * kStartClasses, 0.0) {}

  // The call stack sweep of ravel-style timelines: at every moment the
  // innermost running call is what the timeline shows on top.
  void add_process(std::span<const EventRecord> events,
                   const RegionClasses& class_of_region) {
    stack_.clear();
    TimeNs cursor = events.empty() ? 0 : events.front().start_ns;
    auto emit_to = [&](TimeNs until) {
      if (!stack_.empty() && until > cursor) add(cursor, until, stack_.back().klass);
      cursor = std::max(cursor, until);
    };
    for (const EventRecord& e : events) {
      while (!stack_.empty() && stack_.back().end <= e.start_ns) {
        emit_to(stack_.back().end);
        stack_.pop_back();
      }
      emit_to(e.start_ns);
      stack_.push_back({e.end_ns, class_of_region.of(e.region)});
    }
    while (!stack_.empty()) {
      emit_to(stack_.back().end);
      stack_.pop_back();
    }
  }

  // Writes the block's row into `grid` and clears the accumulator.
  void finish_block(std::int64_t block, std::int64_t processes_in_block, LodGrid& grid) {
    const double capacity = static_cast<double>(processes_in_block) * static_cast<double>(layout_.bin_ns);
    for (std::int64_t i = 0; i < layout_.bins; ++i) {
      double* t = &time_[static_cast<std::size_t>(i) * kStartClasses];
      double total = 0;
      int best = -1;
      for (int k = 0; k < kStartClasses; ++k) {
        total += t[k];
        if (t[k] > 0 && (best < 0 || t[k] > t[best])) best = k;
      }
      if (best >= 0) {
        std::uint8_t* cell = grid.cell(block, i);
        cell[0] = static_cast<std::uint8_t>(best + 1);
        cell[1] = static_cast<std::uint8_t>(std::clamp(255.0 * total / capacity, 1.0, 255.0));
      }
      std::fill(t, t + kStartClasses, 0.0);
    }
  }

 private:
  void add(TimeNs a, TimeNs b, StartClass k) {
    const TimeNs w = layout_.bin_ns;
    const std::int64_t last_bin = layout_.bins - 1;
    for (std::int64_t bin = std::clamp<std::int64_t>(a / w, 0, last_bin);
         bin <= std::clamp<std::int64_t>((b - 1) / w, 0, last_bin); ++bin) {
      const TimeNs lo = std::max(a, bin * w), hi = std::min(b, (bin + 1) * w);
      if (hi > lo)
        time_[static_cast<std::size_t>(bin) * kStartClasses + static_cast<std::size_t>(k)] +=
            static_cast<double>(hi - lo);
    }
  }

  struct Open {
    TimeNs end;
    StartClass klass;
  };
  const LodLayout& layout_;
  std::vector<double> time_;  // per bin, per class: ns of top-of-stack time
  std::vector<Open> stack_;
};

LodGrid build_finest_grid(Database& db, const LodLayout& layout) {
  const auto class_of_region = read_region_classes(db);
  LodGrid grid;
  grid.resize(layout.blocks(layout.min_plevel), layout.bins);
  BlockAccumulator acc(layout);
  const std::int64_t size = layout.block_size(layout.min_plevel);
  std::int64_t block = -1;
  auto finish = [&] {
    if (block < 0) return;
    acc.finish_block(block, std::min(size, layout.processes - block * size), grid);
  };
  scan_events_by_process(db, [&](ProcessIndex p, std::span<const EventRecord> events) {
    const std::int64_t b = static_cast<std::int64_t>(p) / size;
    if (b != block) {
      finish();
      block = b;
    }
    acc.add_process(events, class_of_region);
  });
  finish();
  return grid;
}

void write_level(Database& db, int p, int t, const LodGrid& g) {
  write_tiles(db, "activity_lod", p, t, g.blocks, g.bins, 2, g.cells.data());
}

}  // namespace

LodLayout plan_lod_layout(std::int64_t processes, TimeNs trace_end_ns) {
  LodLayout l;
  l.processes = std::max<std::int64_t>(processes, 1);
  while (l.blocks(l.min_plevel) > kMaxLodBlocks) ++l.min_plevel;
  l.max_plevel = l.min_plevel;
  while (l.block_size(l.max_plevel) < l.processes) ++l.max_plevel;
  const TimeNs span = std::clamp<TimeNs>(trace_end_ns, 0, INT64_MAX - 1) + 1;
  l.bin_ns = std::max<TimeNs>(1, ceil_div(span, kLodBins));
  l.bins = ceil_div(span, l.bin_ns);
  while (l.bins_at(l.max_tlevel + 1) >= kMinLodBins && l.max_tlevel < 16) ++l.max_tlevel;
  return l;
}

void write_activity_lod(Database& db) {
  const LodLayout layout = plan_lod_layout(db.query_int("SELECT count(*) FROM processes"),
                                           read_meta_int(db, "trace_end_ns"));
  LodGrid by_processes = build_finest_grid(db, layout);
  LodGrid coarser_grid, by_time[2];  // reused level to level: no memory faulted in per level

  Transaction tx(db, "BEGIN IMMEDIATE");
  create_tile_table(db, "activity_lod");
  for (int p = layout.min_plevel; p <= layout.max_plevel; ++p) {
    if (p > layout.min_plevel) {
      coarser_in_processes(by_processes, coarser_grid);
      std::swap(by_processes, coarser_grid);
    }
    write_level(db, p, 0, by_processes);
    for (int t = 1; t <= layout.max_tlevel; ++t) {
      LodGrid& level = by_time[t % 2];
      coarser_in_time(t == 1 ? by_processes : by_time[(t - 1) % 2], level);
      write_level(db, p, t, level);
    }
  }
  write_meta_ints(db, {{"lod_min_plevel", layout.min_plevel},
                       {"lod_max_plevel", layout.max_plevel},
                       {"lod_max_tlevel", layout.max_tlevel},
                       {"lod_bin_ns", layout.bin_ns},
                       {"lod_bins", layout.bins}});
  tx.commit();
}

bool has_activity_lod(Database& db) {
  return has_table(db, "activity_lod");
}

ActivityLod::ActivityLod(Database& db)
    : tiles_(db, "activity_lod") {
  layout_.processes = db.query_int("SELECT count(*) FROM processes");
  layout_.min_plevel = static_cast<int>(read_meta_int(db, "lod_min_plevel"));
  layout_.max_plevel = static_cast<int>(read_meta_int(db, "lod_max_plevel"));
  layout_.max_tlevel = static_cast<int>(read_meta_int(db, "lod_max_tlevel"));
  layout_.bin_ns = read_meta_int(db, "lod_bin_ns");
  layout_.bins = read_meta_int(db, "lod_bins");
  if (layout_.min_plevel < 0 || layout_.max_plevel < layout_.min_plevel || layout_.max_plevel > 40 ||
      layout_.max_tlevel < 0 || layout_.max_tlevel > 16 || layout_.bin_ns < 1 || layout_.bins < 1 ||
      layout_.bins > kLodBins + 1)
    throw Error(db.path(), "meta lod_* values are out of range");
}

std::pair<int, int> ActivityLod::choose_levels(double px_per_ns, double px_per_row,
                                               double max_px) const {
  int t = 0;
  while (t < layout_.max_tlevel &&
         static_cast<double>(layout_.bin_width(t + 1)) * px_per_ns <= max_px)
    ++t;
  int p = layout_.min_plevel;
  while (p < layout_.max_plevel && static_cast<double>(layout_.block_size(p + 1)) * px_per_row <= max_px)
    ++p;
  return {p, t};
}

void ActivityLod::read(int plevel, int tlevel, TimeNs t0, TimeNs t1, ProcessIndex p0,
                       ProcessIndex p1, LodCells& out) {
  out.plevel = plevel;
  out.tlevel = tlevel;
  out.grid.clear();
  if (t1 < t0 || p1 < p0) return;
  const TimeNs width = layout_.bin_width(tlevel);
  const std::int64_t bins = layout_.bins_at(tlevel);
  const std::int64_t i0 = std::clamp<std::int64_t>(std::max<TimeNs>(t0, 0) / width, 0, bins - 1);
  const std::int64_t i1 = std::clamp<std::int64_t>(std::max<TimeNs>(t1, 0) / width, 0, bins - 1);
  const std::int64_t b0 = std::max<std::int64_t>(p0, 0) >> plevel;
  const std::int64_t b1 = std::max<std::int64_t>(b0, static_cast<std::int64_t>(p1) >> plevel);
  tiles_.read(plevel, tlevel, b0, b1, i0, i1, bins, LodCells::kCellBytes, out.grid);
}

}  // namespace weft::db
