#pragma once
// The levels of the step level of detail (step_lod.h) made from the rows of
// its finest level, one row (a block of processes, all its step bins) at a
// time, in order. Each row is compressed at every step level as it comes
// and merged with the row before it into the next coarser process level
// (blocks pair up: 2b and 2b + 1 make b), whose rows are compressed and
// merged in turn. So a level is never held whole: one pending row per
// process level and one scratch row.
//
// Why: the whole finest grid of a run with many steps is large (1,024
// processes × 4,481 steps: 23 MB, and its coarser levels as much again), and
// every page of it is first-touched (the kernel zeroing it: ~1 ms per MB on
// these VMs). An MPI analysis gives its items process by process, so its
// finest rows are complete one after the other and go straight in here.
#include <cstdint>
#include <vector>

#include "summary/lod_tiles.h"

namespace weft::db {

struct StepLodLayout;

class StepLodPyramid {
 public:
  // Which process levels' tiles are made: all of them, the finest only, or
  // the coarser ones only (the last two split one grid between two threads).
  enum class Levels { All, Finest, Coarser };
  StepLodPyramid(const StepLodLayout& layout, Levels levels);

  // The next row of the finest process level: layout.bins(min_slevel) cells
  // of kStepLodCellBytes bytes. Every block comes once, in order (an empty
  // one as zeros).
  void add_finest_row(const std::uint8_t* cells);
  // Once every finest row is in: the odd last rows go up alone; returns the
  // tiles in key order (sort_tiles_by_key). Throws weft::Error when a row
  // is missing (an internal error).
  CompressedTiles finish();

 private:
  // Row `block` of process level `plevel`: its tiles, then its pair's merge.
  void add_row(int plevel, std::int64_t block, const std::uint8_t* cells);
  void compress_step_levels(int plevel, std::int64_t block, const std::uint8_t* cells);

  const StepLodLayout& layout_;
  const Levels levels_;
  const std::size_t row_bytes_;
  std::int64_t finest_rows_ = 0;
  // Per process level above the finest, from min_plevel + 1: the even block
  // of the level below waiting for its pair (empty when none), its block,
  // and the merged row handed up (kept apart from the pending rows, which
  // the level above may fill meanwhile).
  std::vector<std::vector<std::uint8_t>> pending_;
  std::vector<std::int64_t> pending_block_;
  std::vector<std::vector<std::uint8_t>> merged_;
  std::vector<std::uint8_t> by_steps_;  // a row made coarser in steps, in place
  TileCompressor compressor_;
  CompressedTiles tiles_;
};

// Row `to` = rows `a` and `b` merged cell by cell (`cells` cells each): the
// larger of each metric byte, the union of the class bytes.
void merge_step_lod_rows(std::uint8_t* to, const std::uint8_t* a, const std::uint8_t* b, std::int64_t cells);
// Each cell of row `to` = the pair of cells of row `fine` it covers
// (`fine_cells` of them; the last alone when odd). `to` may be `fine`.
void merge_step_lod_cell_pairs(std::uint8_t* to, const std::uint8_t* fine, std::int64_t fine_cells);

}  // namespace weft::db
