#pragma once
// Storage shared by the level-of-detail tables (activity_lod, step_lod): a
// level is a grid of blocks × bins of fixed-size cells, stored as one
// zlib-compressed blob per (block, tile of kLodTileBins bins); tiles whose
// cells are all zero have no row. Tables have the columns
// (plevel, tlevel, block, tile, data) with that primary key.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "store/sqlite.h"

namespace weft::db {

constexpr std::int64_t kLodTileBins = 1024;  // bins per stored blob

// Creates `table` (dropping an older one).
void create_tile_table(Database& db, const std::string& table);

// Writes level (p, t): `cell(block, bin, out)` fills the `cell_bytes` bytes of a cell.
void write_tiles(Database& db, const std::string& table, int p, int t, std::int64_t blocks,
                 std::int64_t bins, int cell_bytes,
                 const std::function<void(std::int64_t, std::int64_t, std::uint8_t*)>& cell);

class TileReader {
 public:
  TileReader(Database& db, const std::string& table);
  // Calls visit(block, first, last, cells) for each stored (nonzero) tile of
  // level (p, t) in blocks [b0, b1] overlapping bins [i0, i1], in (block,
  // bin) order: `cells` holds the tile's cells of bins first..last (clipped
  // to [i0, i1]), `cell_bytes` each. One call per tile, so the caller's loop
  // over cells stays inline (a call per cell cost a quarter of a read).
  // `bins` is the level's bin count (the last tile is shorter).
  void read(int p, int t, std::int64_t b0, std::int64_t b1, std::int64_t i0, std::int64_t i1,
            std::int64_t bins, int cell_bytes,
            const std::function<void(std::int32_t, std::int32_t, std::int32_t, const std::uint8_t*)>& visit);

 private:
  Database& db_;
  Statement stmt_;
  std::vector<std::uint8_t> scratch_;
};

}  // namespace weft::db
