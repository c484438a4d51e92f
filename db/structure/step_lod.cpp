#include "structure/step_lod.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "common/error.h"
#include "common/release_memory.h"
#include "store/meta.h"
#include "structure/job_exchange.h"
#include "summary/start_histogram.h"

namespace weft::db {

namespace {

constexpr std::int64_t kMaxStepLodBlocks = 1024;
constexpr std::int64_t kMaxStepLodBins = 16384;
constexpr std::int64_t kMinStepLodBins = 64;

// One level in memory, cells row-major by block.
struct StepGrid {
  std::int64_t blocks = 0, bins = 0;
  std::vector<std::array<std::uint8_t, kStepLodCellBytes>> cells;
  void resize(std::int64_t b, std::int64_t n) {
    blocks = b;
    bins = n;
    cells.assign(static_cast<std::size_t>(b * n), {});
  }
  std::array<std::uint8_t, kStepLodCellBytes>& at(std::int64_t block, std::int64_t bin) {
    return cells[static_cast<std::size_t>(block * bins + bin)];
  }
  // The cells as the tiles' bytes (an array of byte arrays has no padding).
  const std::uint8_t* bytes() const { return cells.empty() ? nullptr : cells.front().data(); }
};
static_assert(sizeof(std::array<std::uint8_t, kStepLodCellBytes>) == kStepLodCellBytes);

void merge_into(std::array<std::uint8_t, kStepLodCellBytes>& to, const std::array<std::uint8_t, kStepLodCellBytes>& from) {
  for (int f = 0; f < kLodClasses; ++f) to[static_cast<std::size_t>(f)] = std::max(to[static_cast<std::size_t>(f)], from[static_cast<std::size_t>(f)]);
  to[kLodClasses] |= from[kLodClasses];
}

// Row `to` = rows `a` and `b` merged cell by cell (`cells` cells each): the
// bytes' maximum over the whole row, 16 at a time (GCC's -O2 left the byte
// loop scalar, 8 instructions a byte), then the class bytes' union over it.
// Merging cell by cell, five bytes at a time, was most of the coarser
// levels' time (before their compression).
void merge_rows(std::uint8_t* to, const std::uint8_t* a, const std::uint8_t* b, std::int64_t cells) {
  using Bytes16 = std::uint8_t __attribute__((vector_size(16)));
  const auto bytes = static_cast<std::size_t>(cells * kStepLodCellBytes);
  std::size_t j = 0;
  for (; j + sizeof(Bytes16) <= bytes; j += sizeof(Bytes16)) {
    Bytes16 x, y;
    std::memcpy(&x, a + j, sizeof x);
    std::memcpy(&y, b + j, sizeof y);
    const Bytes16 larger = x > y ? x : y;
    std::memcpy(to + j, &larger, sizeof larger);
  }
  for (; j < bytes; ++j) to[j] = std::max(a[j], b[j]);
  for (j = kLodClasses; j < bytes; j += kStepLodCellBytes) to[j] = a[j] | b[j];
}

// Each cell of row `to` = the pair of cells of row `fine` it covers
// (`fine_cells` of them; the last alone when odd). The pair is copied out
// first: stores through `to` would otherwise make the compiler reload it.
void merge_cell_pairs(std::uint8_t* to, const std::uint8_t* fine, std::int64_t fine_cells) {
  constexpr int n = kStepLodCellBytes;
  const std::int64_t pairs = fine_cells / 2;
  for (std::int64_t i = 0; i < pairs; ++i, to += n, fine += 2 * n) {
    std::array<std::uint8_t, 2 * n> pair;
    std::memcpy(pair.data(), fine, pair.size());
    std::array<std::uint8_t, n> cell;
    for (int f = 0; f < kLodClasses; ++f) cell[f] = std::max(pair[f], pair[n + f]);
    cell[kLodClasses] = pair[kLodClasses] | pair[n + kLodClasses];
    std::memcpy(to, cell.data(), cell.size());
  }
  if (fine_cells % 2 != 0) std::copy(fine, fine + n, to);
}

StepGrid coarser(const StepGrid& fine, bool in_processes) {
  StepGrid g;
  g.resize(in_processes ? (fine.blocks + 1) / 2 : fine.blocks, in_processes ? fine.bins : (fine.bins + 1) / 2);
  const auto fine_row = static_cast<std::size_t>(fine.bins * kStepLodCellBytes);
  const auto row = static_cast<std::size_t>(g.bins * kStepLodCellBytes);
  std::uint8_t* to = g.cells.empty() ? nullptr : g.cells.front().data();
  const std::uint8_t* from = fine.bytes();
  for (std::int64_t b = 0; b < g.blocks; ++b, to += row) {
    if (!in_processes) {
      merge_cell_pairs(to, from + static_cast<std::size_t>(b) * fine_row, fine.bins);
    } else if (2 * b + 1 < fine.blocks) {
      merge_rows(to, from + static_cast<std::size_t>(2 * b) * fine_row, from + static_cast<std::size_t>(2 * b + 1) * fine_row, fine.bins);
    } else {  // the odd last block alone
      std::copy_n(from + static_cast<std::size_t>(2 * b) * fine_row, fine_row, to);
    }
  }
  return g;
}

// The tiles of process level p (its cells `by_processes`) and of every
// coarser step level made from them.
void compress_process_level(const StepLodLayout& l, int p, const StepGrid& by_processes, CompressedTiles& out) {
  compress_tiles(p, l.min_slevel, by_processes.blocks, by_processes.bins, kStepLodCellBytes, by_processes.bytes(), out);
  StepGrid level;  // coarser in steps, from by_processes without a copy of it
  for (int sl = l.min_slevel + 1; sl <= l.max_slevel; ++sl) {
    level = coarser(sl == l.min_slevel + 1 ? by_processes : level, false);
    compress_tiles(p, sl, level.blocks, level.bins, kStepLodCellBytes, level.bytes(), out);
  }
}

void append_tiles(const CompressedTiles& from, CompressedTiles& to) {
  const std::size_t offset = to.bytes.size();
  to.bytes.insert(to.bytes.end(), from.bytes.begin(), from.bytes.end());
  for (CompressedTiles::Tile tile : from.tiles) {
    tile.offset += offset;
    to.tiles.push_back(tile);
  }
}

// One cell's raw maxima and class set, before quantization.
struct RawCell {
  TimeNs lateness = 0, diff_lateness = 0, global_lateness = 0, duration = 0;
  std::uint8_t classes = 0;  // 0: no event
};

std::array<std::uint8_t, kStepLodCellBytes> quantized_cell(const RawCell& c, const StepLodMaxima& max) {
  std::array<std::uint8_t, kStepLodCellBytes> q{};
  q[kLodLateness] = quantize_metric(c.lateness, max.lateness);
  q[kLodDiffLateness] = quantize_metric(c.diff_lateness, max.diff_lateness);
  q[kLodGlobalLateness] = quantize_metric(c.global_lateness, max.global_lateness);
  q[kLodDuration] = quantize_metric(c.duration, max.duration);
  q[kLodClasses] = c.classes;
  return q;
}

void merge_raw_diff(std::vector<TimeNs>& raw_diff, const StepGrid& grid, std::int64_t block, std::int64_t bin,
                    TimeNs diff_lateness) {
  TimeNs& to = raw_diff[static_cast<std::size_t>(block * grid.bins + bin)];
  to = std::max(to, diff_lateness);
}

// The finest cells of one block of rows, kept raw while the items of that
// block arrive (an MPI analysis gives them process by process) and quantized
// once per cell when the next block starts, not once per item: the maximum of
// quantized values is the quantized maximum (quantize_metric never
// decreases), so the cells are the same bytes. This was a third of the step
// level of detail's time.
class RawCellBand {
 public:
  explicit RawCellBand(std::int64_t bins) : cells_(static_cast<std::size_t>(bins)) {}
  std::int64_t block() const { return block_; }
  void add(std::int64_t bin, const StepLodItem& it, std::uint8_t class_bit) {
    RawCell& c = cells_[static_cast<std::size_t>(bin)];
    c.lateness = std::max(c.lateness, it.lateness);
    c.diff_lateness = std::max(c.diff_lateness, it.diff_lateness);
    c.global_lateness = std::max(c.global_lateness, it.global_lateness);
    c.duration = std::max(c.duration, it.duration);
    c.classes |= class_bit;
    lo_ = std::min(lo_, bin);
    hi_ = std::max(hi_, bin);
  }
  // Merges the band's cells into `grid` (the raw differential lateness into
  // `raw_diff` instead, when not empty) and starts `block` empty.
  void move_to(std::int64_t block, StepGrid& grid, const StepLodMaxima& max, std::vector<TimeNs>& raw_diff) {
    for (std::int64_t bin = lo_; bin <= hi_; ++bin) {
      RawCell& c = cells_[static_cast<std::size_t>(bin)];
      if (c.classes != 0) {
        merge_into(grid.at(block_, bin), quantized_cell(c, max));
        if (!raw_diff.empty()) merge_raw_diff(raw_diff, grid, block_, bin, c.diff_lateness);
      }
      c = RawCell{};
    }
    block_ = block;
    lo_ = std::numeric_limits<std::int64_t>::max();
    hi_ = -1;
  }

 private:
  std::vector<RawCell> cells_;  // per bin of the finest step level
  std::int64_t block_ = -1;
  std::int64_t lo_ = std::numeric_limits<std::int64_t>::max(), hi_ = -1;  // the bins touched
};

}  // namespace

std::uint8_t quantize_metric(TimeNs value, TimeNs max) {
  if (value <= 0 || max <= 0) return 0;
  return static_cast<std::uint8_t>(std::clamp<double>(std::ceil(255.0 * static_cast<double>(value) / static_cast<double>(max)), 1.0, 255.0));
}

StepLodLayout plan_step_lod_layout(std::int64_t processes, std::int64_t steps) {
  StepLodLayout l;
  l.processes = std::max<std::int64_t>(processes, 1);
  l.steps = std::max<std::int64_t>(steps, 1);
  while (l.blocks(l.min_plevel) > kMaxStepLodBlocks) ++l.min_plevel;
  l.max_plevel = l.min_plevel;
  while (l.block_size(l.max_plevel) < l.processes) ++l.max_plevel;
  while (l.bins(l.min_slevel) > kMaxStepLodBins) ++l.min_slevel;
  l.max_slevel = l.min_slevel;
  while (l.bins(l.max_slevel + 1) >= kMinStepLodBins) ++l.max_slevel;
  return l;
}

TimeNs max_input_op_duration(const structure::StructureResult& r) {
  TimeNs max_duration = 0;
  r.input.for_each(r.trace, [&](const structure::InputOp& op) { max_duration = std::max(max_duration, op.end - op.start); });
  return max_duration;
}

StepLodTiles build_step_lod(const LoadedCommTrace& loaded, const structure::StructureResult& r,
                            const RegionClasses& classes, TimeNs max_lateness, TimeNs max_diff_lateness,
                            TimeNs max_global_lateness, JobExchange* share) {
  const TimeNs max_duration = max_input_op_duration(r);
  return build_step_lod(r.trace.process_count, r.report.global_steps, [&](const auto& emit) {
    structure::OpIndex previous = structure::kNoOp;
    structure::OpMetrics m;  // the analyzed op's: computed once for a coalesced run
    r.input.for_each(r.trace, [&](const structure::InputOp& op) {
      if (op.analyzed != previous) m = r.metrics.all_in_op_order(op.analyzed);
      previous = op.analyzed;
      emit(step_lod_item(loaded, r, op, m));
    });
  }, classes, {max_lateness, max_diff_lateness, max_global_lateness, max_duration}, share);
}

StepLodTiles build_step_lod(std::int64_t rows, std::int64_t steps, const StepLodItems& items,
                            const RegionClasses& classes) {
  StepLodMaxima max;
  items([&](const StepLodItem& it) {
    max.lateness = std::max(max.lateness, it.lateness);
    max.diff_lateness = std::max(max.diff_lateness, it.diff_lateness);
    max.global_lateness = std::max(max.global_lateness, it.global_lateness);
    max.duration = std::max(max.duration, it.duration);
  });
  return build_step_lod(rows, steps, items, classes, max);
}

struct StepLodBuilder::State {
  StepLodTiles lod;
  const RegionClasses& classes;
  StepLodMaxima max;  // its diff_lateness 0 while it is found from the items
  StepGrid grid;      // the finest level
  RawCellBand band;
  // Per finest cell, while the largest differential lateness is found from
  // the items: its raw largest (empty otherwise).
  std::vector<TimeNs> raw_diff;

  State(std::int64_t rows, std::int64_t steps, const RegionClasses& c, const StepLodMaxima& m)
      : lod{plan_step_lod_layout(rows, steps), {}}, classes(c), max(m),
        band((lod.layout.steps + (std::int64_t{1} << lod.layout.min_slevel) - 1) >> lod.layout.min_slevel) {
    const StepLodLayout& l = lod.layout;
    grid.resize(l.blocks(l.min_plevel), l.bins(l.min_slevel));
  }
};

std::int64_t StepLodBuilder::diff_from_items_bytes(std::int64_t rows, std::int64_t steps) {
  const StepLodLayout l = plan_step_lod_layout(rows, steps);
  return l.blocks(l.min_plevel) * l.bins(l.min_slevel) * static_cast<std::int64_t>(sizeof(TimeNs));
}

StepLodBuilder::StepLodBuilder(std::int64_t rows, std::int64_t steps, const RegionClasses& classes,
                               const StepLodMaxima& maxima, Diff diff)
    : s_(std::make_unique<State>(rows, steps, classes, maxima)) {
  if (diff == Diff::FromItems) {
    s_->max.diff_lateness = 0;  // quantizes to 0 until finish()
    s_->raw_diff.assign(s_->grid.cells.size(), 0);
  }
}

StepLodBuilder::~StepLodBuilder() = default;

void StepLodBuilder::add(const StepLodItem& it) {
  State& s = *s_;
  const StepLodLayout& l = s.lod.layout;
  if (it.step < 0 || it.step >= l.steps || it.row < 0 || it.row >= l.processes) return;
  const std::int64_t block = it.row >> l.min_plevel, bin = it.step >> l.min_slevel;
  const auto class_bit = static_cast<std::uint8_t>(1u << static_cast<int>(s.classes.of(it.region)));
  if (block != s.band.block()) {
    if (block < s.band.block()) {  // rows out of order: this item alone, quantized now
      merge_into(s.grid.at(block, bin), quantized_cell(RawCell{it.lateness, it.diff_lateness, it.global_lateness,
                                                               it.duration, class_bit}, s.max));
      if (!s.raw_diff.empty()) merge_raw_diff(s.raw_diff, s.grid, block, bin, it.diff_lateness);
      return;
    }
    s.band.move_to(block, s.grid, s.max, s.raw_diff);
  }
  s.band.add(bin, it, class_bit);
}

StepLodTiles StepLodBuilder::finish(JobExchange* share) {
  State& s = *s_;
  const StepLodLayout& l = s.lod.layout;
  s.band.move_to(s.grid.blocks, s.grid, s.max, s.raw_diff);
  if (!s.raw_diff.empty()) {
    // The maximum of quantized values is the quantized maximum: the same
    // bytes as quantizing each band with the largest known beforehand.
    const TimeNs max_diff = *std::max_element(s.raw_diff.begin(), s.raw_diff.end());
    for (std::size_t i = 0; i < s.raw_diff.size(); ++i)
      s.grid.cells[i][kLodDiffLateness] = quantize_metric(s.raw_diff[i], max_diff);
    release_memory(s.raw_diff);
  }
  // The finest level of processes and the coarser ones are about the same
  // work (each coarser one has half the blocks of the one before): the
  // coarser ones are offered to the other thread while this one compresses
  // the finest. Their tiles follow the finest level's, as before.
  const StepGrid finest = std::move(s.grid);
  CompressedTiles coarser_tiles;
  JobExchange::Offer coarser_levels(share, [&] {
    StepGrid by_processes;
    for (int p = l.min_plevel + 1; p <= l.max_plevel; ++p) {
      by_processes = coarser(p == l.min_plevel + 1 ? finest : by_processes, true);
      compress_process_level(l, p, by_processes, coarser_tiles);
    }
  });
  compress_process_level(l, l.min_plevel, finest, s.lod.tiles);
  coarser_levels.run_or_wait();
  append_tiles(coarser_tiles, s.lod.tiles);
  return std::move(s.lod);
}

StepLodTiles build_step_lod(std::int64_t rows, std::int64_t steps, const StepLodItems& items,
                            const RegionClasses& classes, const StepLodMaxima& max, JobExchange* share) {
  StepLodBuilder builder(rows, steps, classes, max, StepLodBuilder::Diff::Known);
  items([&](const StepLodItem& it) { builder.add(it); });
  return builder.finish(share);
}

void write_step_lod(Database& db, const StepLodTiles& lod) {
  create_tile_table(db, "step_lod");
  insert_tiles(db, "step_lod", lod.tiles);
  const StepLodLayout& l = lod.layout;
  write_meta_ints(db, {{"step_lod_min_plevel", l.min_plevel},
                       {"step_lod_max_plevel", l.max_plevel},
                       {"step_lod_min_slevel", l.min_slevel},
                       {"step_lod_max_slevel", l.max_slevel},
                       {"step_lod_steps", l.steps},
                       {"step_lod_rows", l.processes}});
}

void write_step_lod_items(Database& db, std::int64_t rows, std::int64_t steps, const StepLodItems& items) {
  write_step_lod(db, build_step_lod(rows, steps, items, read_region_classes(db)));
}

bool has_step_lod(Database& db) {
  return has_table(db, "step_lod");
}

StepLod::StepLod(Database& db) : tiles_(db, "step_lod") {
  // Logical rows: processes for MPI runs, chares for task runs (older files lack the fact).
  layout_.processes = db.query_int("SELECT coalesce((SELECT value FROM meta WHERE key = 'step_lod_rows'),"
                                   " (SELECT count(*) FROM processes))");
  layout_.min_plevel = static_cast<int>(read_meta_int(db, "step_lod_min_plevel", "re-run `weft analyze`"));
  layout_.max_plevel = static_cast<int>(read_meta_int(db, "step_lod_max_plevel", "re-run `weft analyze`"));
  layout_.min_slevel = static_cast<int>(read_meta_int(db, "step_lod_min_slevel", "re-run `weft analyze`"));
  layout_.max_slevel = static_cast<int>(read_meta_int(db, "step_lod_max_slevel", "re-run `weft analyze`"));
  layout_.steps = read_meta_int(db, "step_lod_steps", "re-run `weft analyze`");
  if (layout_.min_plevel < 0 || layout_.max_plevel < layout_.min_plevel || layout_.max_plevel > 40 ||
      layout_.min_slevel < 0 || layout_.max_slevel < layout_.min_slevel || layout_.max_slevel > 40 ||
      layout_.steps < 1)
    throw Error(db.path(), "meta step_lod_* values are out of range");
}

std::pair<int, int> StepLod::choose_levels(double px_per_step, double px_per_row, double max_px) const {
  int s = layout_.min_slevel;
  while (s < layout_.max_slevel && static_cast<double>(std::int64_t{1} << (s + 1)) * px_per_step <= max_px) ++s;
  int p = layout_.min_plevel;
  while (p < layout_.max_plevel && static_cast<double>(layout_.block_size(p + 1)) * px_per_row <= max_px) ++p;
  return {p, s};
}

void StepLod::read(int plevel, int slevel, std::int64_t s0, std::int64_t s1, ProcessIndex p0, ProcessIndex p1,
                   StepLodCells& out) {
  out.plevel = plevel;
  out.slevel = slevel;
  out.grid.clear();
  if (s1 < s0 || p1 < p0) return;
  const std::int64_t bins = layout_.bins(slevel);
  const std::int64_t i0 = std::clamp<std::int64_t>(std::max<std::int64_t>(s0, 0) >> slevel, 0, bins - 1);
  const std::int64_t i1 = std::clamp<std::int64_t>(std::max<std::int64_t>(s1, 0) >> slevel, 0, bins - 1);
  const std::int64_t b0 = std::max<std::int64_t>(p0, 0) >> plevel;
  const std::int64_t b1 = std::max<std::int64_t>(b0, static_cast<std::int64_t>(p1) >> plevel);
  tiles_.read(plevel, slevel, b0, b1, i0, i1, bins, kStepLodCellBytes, out.grid);
}

}  // namespace weft::db
