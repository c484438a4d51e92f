#pragma once
// Level of detail for the logical timeline (docs/schema.md, "step_lod"): a
// zoomed-out step × process view of a large run reads cells, not events. Cells
// are (a block of 2^p processes) × (a bin of 2^s global steps); each keeps the
// largest lateness, differential lateness, global lateness and duration of the
// communication events in it, each as 1..255 of the run's largest value (0:
// none), and the set of function classes present. Maxima and sets merge
// exactly, so every level carries the true maximum of the events it covers.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "store/sqlite.h"
#include "summary/lod_tiles.h"
#include "summary/start_histogram.h"
#include "structure/analysis.h"
#include "structure/comm_trace_loader.h"

namespace weft::db {

class JobExchange;

constexpr int kStepLodCellBytes = 5;
enum StepLodField { kLodLateness = 0, kLodDiffLateness, kLodGlobalLateness, kLodDuration, kLodClasses };

struct StepLodLayout {
  std::int64_t processes = 0;
  std::int64_t steps = 0;
  int min_plevel = 0, max_plevel = 0;  // blocks of 2^p processes
  int min_slevel = 0, max_slevel = 0;  // bins of 2^s steps
  std::int64_t block_size(int p) const { return std::int64_t{1} << p; }
  std::int64_t blocks(int p) const { return (processes + block_size(p) - 1) / block_size(p); }
  std::int64_t bins(int s) const { return (steps + (std::int64_t{1} << s) - 1) >> s; }
};

// The steps that can hold an item. An MPI analysis' communication events sit
// on odd steps only (the even ones are the aggregated work between them, which
// step_lod does not hold): bins of one step would leave every other column
// empty, so its finest bins are two steps wide. They hold the same cells in
// half the cells, and half the time and memory to build them (at 1,024
// processes × 320 iterations, 4,481 steps: 0.187 → 0.144 s).
enum class StepLodSteps { Any, OddOnly };

StepLodLayout plan_step_lod_layout(std::int64_t processes, std::int64_t steps,
                                   StepLodSteps used = StepLodSteps::Any);

// Every level of step_lod, compressed and ready to insert: built without the
// database, so that the analysis can build it on a second thread.
struct StepLodTiles {
  StepLodLayout layout;
  CompressedTiles tiles;
};

// One drawn event of any analysis (MPI op or task dependency event): its
// logical row, global step, metrics and region.
struct StepLodItem {
  std::int64_t row = 0, step = 0;
  TimeNs lateness = 0, diff_lateness = 0, global_lateness = 0, duration = 0;
  std::int64_t region = 0;
};
// Calls its argument once per item; called twice (maxima, then cells).
using StepLodItems = std::function<void(const std::function<void(const StepLodItem&)>&)>;
// The largest value of each metric among the items: cells hold 1..255 of it.
struct StepLodMaxima {
  TimeNs lateness = 0, diff_lateness = 0, global_lateness = 0, duration = 0;
};
// Builds the level of detail of items given one at a time, over `rows`
// logical rows and `steps` steps. With Diff::FromItems the largest
// differential lateness is not known beforehand: the finest cells keep their
// raw largest (diff_from_items_bytes) until finish() quantizes them with the
// items' largest, so one walk of the items serves the time bins too
// (view_tables.cpp). The cells are the same bytes either way.
//
// Items that come row by row (Rows::InOrder: an MPI analysis's, process by
// process) with the maxima known may be streamed: each finest row goes into
// a StepLodPyramid (step_lod_pyramid.h) when the next row starts, and no
// level is held whole. Grid::Auto streams when the finest level would take
// more than kMaxWholeGridBytes; held whole, the coarser levels' compression
// can be shared with another thread (finish). The tiles are the same bytes
// either way.
class StepLodBuilder {
 public:
  enum class Diff { Known, FromItems };
  enum class Rows { AnyOrder, InOrder };
  enum class Grid { Auto, Whole, Streamed };
  static constexpr std::int64_t kMaxWholeGridBytes = std::int64_t{4} << 20;
  // How the items come and how the grid is held; callers name what differs
  // from these ({.diff = Diff::FromItems, .used = StepLodSteps::OddOnly}).
  // Grid::Streamed streams only where it can (Diff::Known, Rows::InOrder).
  struct Options {
    Diff diff = Diff::Known;
    Rows order = Rows::AnyOrder;
    Grid grid = Grid::Auto;
    StepLodSteps used = StepLodSteps::Any;
  };
  StepLodBuilder(std::int64_t rows, std::int64_t steps, const RegionClasses& classes, const StepLodMaxima& maxima,
                 Options options);
  ~StepLodBuilder();
  StepLodBuilder(const StepLodBuilder&) = delete;
  StepLodBuilder& operator=(const StepLodBuilder&) = delete;
  // Rows::InOrder promises that an item's row is never before the previous
  // item's; a streamed builder throws weft::Error (an internal error) if it is.
  void add(const StepLodItem& item);
  // Once. With `share`, the coarser process levels of a whole grid are
  // offered to the thread that helps there (JobExchange).
  StepLodTiles finish(JobExchange* share = nullptr);
  bool streamed() const;
  static bool streams(std::int64_t rows, std::int64_t steps, Options options);
  // The memory Diff::FromItems takes for such a layout.
  static std::int64_t diff_from_items_bytes(std::int64_t rows, std::int64_t steps,
                                            StepLodSteps used = StepLodSteps::Any);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The level of detail of the items over `rows` logical rows and `steps` steps
// (the items are visited once, for the cells).
StepLodTiles build_step_lod(std::int64_t rows, std::int64_t steps, const StepLodItems& items,
                            const RegionClasses& classes, const StepLodMaxima& maxima, JobExchange* share = nullptr,
                            StepLodBuilder::Rows order = StepLodBuilder::Rows::AnyOrder,
                            StepLodSteps used = StepLodSteps::Any);
// The same with the maxima found in a first visit of the items.
StepLodTiles build_step_lod(std::int64_t rows, std::int64_t steps, const StepLodItems& items,
                            const RegionClasses& classes);
// The item of one input op of an MPI analysis, with its analyzed op's
// metrics `m` (a coalesced run's ops share them; the duration is the op's own).
inline StepLodItem step_lod_item(const LoadedCommTrace& loaded, const structure::StructureResult& r,
                                 const structure::InputOp& op, const structure::OpMetrics& m) {
  return {op.process, r.global_step(op.analyzed), m.lateness, m.diff_lateness, m.global_lateness,
          op.end - op.start, loaded.region[static_cast<std::size_t>(op.index)]};
}
// The items of an MPI analysis (its input ops), with the maxima of the
// lateness metrics known (the analysis' own ranges).
StepLodTiles build_step_lod(const LoadedCommTrace& loaded, const structure::StructureResult& result,
                            const RegionClasses& classes, TimeNs max_lateness, TimeNs max_diff_lateness,
                            TimeNs max_global_lateness, JobExchange* share = nullptr);
// (Re)creates step_lod with its meta facts (step_lod_rows: the layout's rows)
// inside the caller's transaction.
void write_step_lod(Database& db, const StepLodTiles& lod);
// Both, reading the classes from `db`.
void write_step_lod_items(Database& db, std::int64_t rows, std::int64_t steps, const StepLodItems& items);
bool has_step_lod(Database& db);

// Quantized metric: 0 for none, else 1..255 of `max`.
std::uint8_t quantize_metric(TimeNs value, TimeNs max);

// Cells of one level in a window: a CellGrid (lod_tiles.h) of
// kStepLodCellBytes-byte cells (StepLodField order; classes 0: no event).
struct StepLodCells {
  int plevel = 0, slevel = 0;
  CellGrid grid;
};

class StepLod {
 public:
  explicit StepLod(Database& db);  // throws weft::Error when meta is missing or malformed
  const StepLodLayout& layout() const { return layout_; }
  // The coarsest stored levels whose cells are at most `max_px` on a side.
  std::pair<int, int> choose_levels(double px_per_step, double px_per_row, double max_px) const;
  void read(int plevel, int slevel, std::int64_t s0, std::int64_t s1, ProcessIndex p0, ProcessIndex p1,
            StepLodCells& out);

 private:
  StepLodLayout layout_;
  TileReader tiles_;
};

}  // namespace weft::db
