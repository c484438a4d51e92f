#include "structure/step_lod.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/error.h"
#include "common/release_memory.h"
#include "store/meta.h"
#include "structure/job_exchange.h"
#include "structure/step_lod_pyramid.h"
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
  // Hands each touched cell to `put(block, bin, cell)` and starts `block`
  // empty.
  template <class Put>
  void move_to(std::int64_t block, Put&& put) {
    for (std::int64_t bin = lo_; bin <= hi_; ++bin) {
      RawCell& c = cells_[static_cast<std::size_t>(bin)];
      if (c.classes != 0) put(block_, bin, c);
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

StepLodLayout plan_step_lod_layout(std::int64_t processes, std::int64_t steps, StepLodSteps used) {
  StepLodLayout l;
  l.processes = std::max<std::int64_t>(processes, 1);
  l.steps = std::max<std::int64_t>(steps, 1);
  while (l.blocks(l.min_plevel) > kMaxStepLodBlocks) ++l.min_plevel;
  l.max_plevel = l.min_plevel;
  while (l.block_size(l.max_plevel) < l.processes) ++l.max_plevel;
  if (used == StepLodSteps::OddOnly) l.min_slevel = 1;
  while (l.bins(l.min_slevel) > kMaxStepLodBins) ++l.min_slevel;
  l.max_slevel = l.min_slevel;
  while (l.bins(l.max_slevel + 1) >= kMinStepLodBins) ++l.max_slevel;
  return l;
}

StepLodTiles build_step_lod(const LoadedCommTrace& loaded, const structure::StructureResult& r,
                            const RegionClasses& classes, TimeNs max_lateness, TimeNs max_diff_lateness,
                            TimeNs max_global_lateness, JobExchange* share) {
  const TimeNs max_duration = r.input.max_duration();  // the cells' duration maximum
  // The input ops are in process order (check_op_order): rows in order.
  return build_step_lod(r.trace.process_count, r.report.global_steps, [&](const auto& emit) {
    structure::OpIndex previous = structure::kNoOp;
    structure::OpMetrics m;  // the analyzed op's: computed once for a coalesced run
    r.input.for_each(r.trace, [&](const structure::InputOp& op) {
      if (op.analyzed != previous) m = r.metrics.all_in_op_order(op.analyzed);
      previous = op.analyzed;
      emit(step_lod_item(loaded, r, op, m));
    });
  }, classes, {max_lateness, max_diff_lateness, max_global_lateness, max_duration}, share,
                        StepLodBuilder::Rows::InOrder, StepLodSteps::OddOnly);
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
  RawCellBand band;
  // The finest level whole (Grid::Whole), or, streamed, the pyramid its rows
  // go into as the band moves on, with how many it has and two rows: the
  // band's cells quantized, and zeros for the blocks without items.
  StepGrid grid;
  std::unique_ptr<StepLodPyramid> pyramid;
  std::int64_t rows_streamed = 0;
  std::vector<std::uint8_t> row, empty_row;
  // Per finest cell, while the largest differential lateness is found from
  // the items: its raw largest (empty otherwise).
  std::vector<TimeNs> raw_diff;

  State(std::int64_t rows, std::int64_t steps, StepLodSteps used, const RegionClasses& c, const StepLodMaxima& m,
        bool streamed)
      : lod{plan_step_lod_layout(rows, steps, used), {}}, classes(c), max(m),
        band((lod.layout.steps + (std::int64_t{1} << lod.layout.min_slevel) - 1) >> lod.layout.min_slevel) {
    const StepLodLayout& l = lod.layout;
    if (!streamed) {
      grid.resize(l.blocks(l.min_plevel), l.bins(l.min_slevel));
      return;
    }
    pyramid = std::make_unique<StepLodPyramid>(lod.layout, StepLodPyramid::Levels::All);
    row.resize(static_cast<std::size_t>(l.bins(l.min_slevel) * kStepLodCellBytes));
    empty_row.resize(row.size());
  }

  // The band's cells go into the grid, or make the pyramid's next row (after
  // the empty rows before it); the band starts `block`.
  void move_band_to(std::int64_t block) {
    if (!pyramid) {
      band.move_to(block, [&](std::int64_t b, std::int64_t bin, const RawCell& c) {
        merge_into(grid.at(b, bin), quantized_cell(c, max));
        if (!raw_diff.empty()) merge_raw_diff(raw_diff, grid, b, bin, c.diff_lateness);
      });
      return;
    }
    const std::int64_t done = band.block();
    if (done < 0) {  // no item yet
      band.move_to(block, [](std::int64_t, std::int64_t, const RawCell&) {});
      return;
    }
    stream_empty_rows_until(done);
    std::fill(row.begin(), row.end(), std::uint8_t{0});
    band.move_to(block, [&](std::int64_t, std::int64_t bin, const RawCell& c) {
      const std::array<std::uint8_t, kStepLodCellBytes> q = quantized_cell(c, max);
      std::copy(q.begin(), q.end(), row.begin() + bin * kStepLodCellBytes);
    });
    pyramid->add_finest_row(row.data());
    ++rows_streamed;
  }
  void stream_empty_rows_until(std::int64_t block) {
    for (; rows_streamed < block; ++rows_streamed) pyramid->add_finest_row(empty_row.data());
  }
};

std::int64_t StepLodBuilder::diff_from_items_bytes(std::int64_t rows, std::int64_t steps, StepLodSteps used) {
  const StepLodLayout l = plan_step_lod_layout(rows, steps, used);
  return l.blocks(l.min_plevel) * l.bins(l.min_slevel) * static_cast<std::int64_t>(sizeof(TimeNs));
}

bool StepLodBuilder::streams(std::int64_t rows, std::int64_t steps, Options o) {
  if (o.diff != Diff::Known || o.order != Rows::InOrder || o.grid == Grid::Whole) return false;
  if (o.grid == Grid::Streamed) return true;
  const StepLodLayout l = plan_step_lod_layout(rows, steps, o.used);
  return l.blocks(l.min_plevel) * l.bins(l.min_slevel) * kStepLodCellBytes > kMaxWholeGridBytes;
}

StepLodBuilder::StepLodBuilder(std::int64_t rows, std::int64_t steps, const RegionClasses& classes,
                               const StepLodMaxima& maxima, Options options)
    : s_(std::make_unique<State>(rows, steps, options.used, classes, maxima, streams(rows, steps, options))) {
  if (options.diff == Diff::FromItems) {
    s_->max.diff_lateness = 0;  // quantizes to 0 until finish()
    s_->raw_diff.assign(s_->grid.cells.size(), 0);
  }
}

StepLodBuilder::~StepLodBuilder() = default;

bool StepLodBuilder::streamed() const {
  return s_->pyramid != nullptr;
}

void StepLodBuilder::add(const StepLodItem& it) {
  State& s = *s_;
  const StepLodLayout& l = s.lod.layout;
  if (it.step < 0 || it.step >= l.steps || it.row < 0 || it.row >= l.processes) return;
  const std::int64_t block = it.row >> l.min_plevel, bin = it.step >> l.min_slevel;
  const auto class_bit = static_cast<std::uint8_t>(1u << static_cast<int>(s.classes.of(it.region)));
  if (block != s.band.block()) {
    if (block < s.band.block()) {  // rows out of order: this item alone, quantized now
      if (s.pyramid) throw Error("internal error: step level of detail items out of row order");
      merge_into(s.grid.at(block, bin), quantized_cell(RawCell{it.lateness, it.diff_lateness, it.global_lateness,
                                                               it.duration, class_bit}, s.max));
      if (!s.raw_diff.empty()) merge_raw_diff(s.raw_diff, s.grid, block, bin, it.diff_lateness);
      return;
    }
    s.move_band_to(block);
  }
  s.band.add(bin, it, class_bit);
}

namespace {

// Every row of `grid` into `pyramid`, then its tiles.
CompressedTiles pyramid_tiles(const StepGrid& grid, const StepLodLayout& l, StepLodPyramid::Levels levels) {
  StepLodPyramid pyramid(l, levels);
  const auto row = static_cast<std::size_t>(grid.bins * kStepLodCellBytes);
  for (std::int64_t b = 0; b < grid.blocks; ++b) pyramid.add_finest_row(grid.bytes() + static_cast<std::size_t>(b) * row);
  return pyramid.finish();
}

}  // namespace

StepLodTiles StepLodBuilder::finish(JobExchange* share) {
  State& s = *s_;
  const StepLodLayout& l = s.lod.layout;
  const std::int64_t blocks = l.blocks(l.min_plevel);
  s.move_band_to(blocks);
  if (s.pyramid) {
    s.stream_empty_rows_until(blocks);
    s.lod.tiles = s.pyramid->finish();
    return std::move(s.lod);
  }
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
  // the finest. Their tiles follow the finest level's, in key order.
  CompressedTiles coarser_tiles;
  JobExchange::Offer coarser_levels(share, [&] {
    coarser_tiles = pyramid_tiles(s.grid, l, StepLodPyramid::Levels::Coarser);
  });
  s.lod.tiles = pyramid_tiles(s.grid, l, StepLodPyramid::Levels::Finest);
  coarser_levels.run_or_wait();
  append_tiles(coarser_tiles, s.lod.tiles);
  return std::move(s.lod);
}

StepLodTiles build_step_lod(std::int64_t rows, std::int64_t steps, const StepLodItems& items,
                            const RegionClasses& classes, const StepLodMaxima& max, JobExchange* share,
                            StepLodBuilder::Rows order, StepLodSteps used) {
  StepLodBuilder builder(rows, steps, classes, max, {.order = order, .used = used});
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
