#include "structure/step_lod_pyramid.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "common/error.h"
#include "structure/step_lod.h"

namespace weft::db {

// The bytes' maximum over the whole row, 16 at a time (GCC's -O2 left the
// byte loop scalar, 8 instructions a byte), then the class bytes' union over
// it. Merging cell by cell, five bytes at a time, was most of the coarser
// levels' time (before their compression).
void merge_step_lod_rows(std::uint8_t* to, const std::uint8_t* a, const std::uint8_t* b, std::int64_t cells) {
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

// Each pair as two overlapping 8-byte vectors, the pair's first cell and its
// second (at +5 bytes): their bytes' maximum holds the metrics' maxima, their
// union the classes' (GCC's vector extension; the byte loop was scalar and
// the step levels' merges 6% of the CPU time at 1,024 processes × 320
// iterations). The last pairs, whose second load would pass the row's end,
// go cell by cell. `to` == `fine` is safe: pair i is read before cell i is
// written, and no later pair reads below cell i + 1.
void merge_step_lod_cell_pairs(std::uint8_t* to, const std::uint8_t* fine, std::int64_t fine_cells) {
  using Bytes8 = std::uint8_t __attribute__((vector_size(8)));
  constexpr int n = kStepLodCellBytes;
  static_assert(2 * n <= static_cast<int>(sizeof(Bytes8)) + n);
  const std::int64_t pairs = fine_cells / 2;
  // Pair i's second load ends at byte 2ni + n + 8 of the row's n * fine_cells.
  const std::int64_t room = n * fine_cells - n - static_cast<std::int64_t>(sizeof(Bytes8));
  const std::int64_t vector_pairs = room < 0 ? 0 : std::min(room / (2 * n) + 1, pairs);
  std::int64_t i = 0;
  for (; i < vector_pairs; ++i, to += n, fine += 2 * n) {
    Bytes8 first, second;
    std::memcpy(&first, fine, sizeof first);
    std::memcpy(&second, fine + n, sizeof second);
    Bytes8 cell = first > second ? first : second;
    cell[kLodClasses] = first[kLodClasses] | second[kLodClasses];
    std::memcpy(to, &cell, n);
  }
  for (; i < pairs; ++i, to += n, fine += 2 * n) {
    std::array<std::uint8_t, 2 * n> pair;
    std::memcpy(pair.data(), fine, pair.size());
    std::array<std::uint8_t, n> cell;
    for (int f = 0; f < kLodClasses; ++f) cell[f] = std::max(pair[f], pair[n + f]);
    cell[kLodClasses] = pair[kLodClasses] | pair[n + kLodClasses];
    std::memcpy(to, cell.data(), cell.size());
  }
  if (fine_cells % 2 != 0) std::memmove(to, fine, n);
}

StepLodPyramid::StepLodPyramid(const StepLodLayout& layout, Levels levels)
    : layout_(layout), levels_(levels),
      row_bytes_(static_cast<std::size_t>(layout.bins(layout.min_slevel) * kStepLodCellBytes)),
      pending_(static_cast<std::size_t>(layout.max_plevel - layout.min_plevel)),
      pending_block_(pending_.size(), 0), merged_(pending_.size()), by_steps_(row_bytes_) {}

void StepLodPyramid::add_finest_row(const std::uint8_t* cells) {
  add_row(layout_.min_plevel, finest_rows_++, cells);
}

void StepLodPyramid::add_row(int plevel, std::int64_t block, const std::uint8_t* cells) {
  const bool finest = plevel == layout_.min_plevel;
  if (levels_ == Levels::All || (levels_ == Levels::Finest) == finest) compress_step_levels(plevel, block, cells);
  if (plevel == layout_.max_plevel || levels_ == Levels::Finest) return;
  const auto up = static_cast<std::size_t>(plevel - layout_.min_plevel);
  std::vector<std::uint8_t>& pending = pending_[up];
  if (block % 2 == 0) {  // waits for block + 1, or for finish()
    pending.assign(cells, cells + row_bytes_);
    pending_block_[up] = block;
    return;
  }
  std::vector<std::uint8_t>& merged = merged_[up];
  merged.resize(row_bytes_);
  merge_step_lod_rows(merged.data(), pending.data(), cells, layout_.bins(layout_.min_slevel));
  pending.clear();
  add_row(plevel + 1, block / 2, merged.data());
}

// The row's tiles at its finest step level, then at each coarser one, made
// from the one before in place.
void StepLodPyramid::compress_step_levels(int plevel, std::int64_t block, const std::uint8_t* cells) {
  const StepLodLayout& l = layout_;
  compressor_.compress_row(plevel, l.min_slevel, block, l.bins(l.min_slevel), kStepLodCellBytes, cells, tiles_);
  const std::uint8_t* finer = cells;
  for (int sl = l.min_slevel + 1; sl <= l.max_slevel; ++sl) {
    merge_step_lod_cell_pairs(by_steps_.data(), finer, l.bins(sl - 1));
    compressor_.compress_row(plevel, sl, block, l.bins(sl), kStepLodCellBytes, by_steps_.data(), tiles_);
    finer = by_steps_.data();
  }
}

CompressedTiles StepLodPyramid::finish() {
  if (finest_rows_ != layout_.blocks(layout_.min_plevel))
    throw Error("internal error: the step level of detail got " + std::to_string(finest_rows_) + " of " +
                std::to_string(layout_.blocks(layout_.min_plevel)) + " rows");
  // From the finest level up: an odd last row going up alone may leave one
  // pending at the level above, which the next turn sends up in turn.
  for (std::size_t up = 0; up < pending_.size(); ++up) {
    if (pending_[up].empty()) continue;
    std::vector<std::uint8_t> alone = std::move(pending_[up]);
    pending_[up].clear();
    add_row(layout_.min_plevel + static_cast<int>(up) + 1, pending_block_[up] / 2, alone.data());
  }
  sort_tiles_by_key(tiles_);
  return std::move(tiles_);
}

}  // namespace weft::db
