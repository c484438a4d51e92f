#pragma once
// Storage shared by the level-of-detail tables (activity_lod, step_lod): a
// level is a grid of blocks × bins of fixed-size cells, stored as one
// compressed blob per (block, tile of kLodTileBins bins): an LZ4 block after
// a one-byte tag (schema version 2 files: a zlib stream, still read). Tiles
// whose cells are all zero have no row. Tables have the columns (plevel,
// tlevel, block, tile, data) with that primary key.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/huge_page_allocator.h"
#include "store/sqlite.h"

namespace weft::db {

constexpr std::int64_t kLodTileBins = 1024;  // bins per stored blob

// Creates `table` (dropping an older one).
void create_tile_table(Database& db, const std::string& table);

// Compressed tiles of one or more levels, ready to insert: compressing needs
// no database, so an analysis can do it on a second thread.
struct CompressedTiles {
  struct Tile {
    int plevel = 0, tlevel = 0;
    std::int64_t block = 0, tile = 0;
    std::size_t offset = 0, size = 0;  // the blob's bytes in `bytes`
  };
  std::vector<Tile> tiles;
  std::vector<std::uint8_t> bytes;
};

// Appends to `out` the tiles of level (p, t) from a grid of `blocks` × `bins`
// cells of `cell_bytes` bytes each, row-major (a block's bins contiguous, as
// in a tile): each tile is compressed straight from the grid; all-zero tiles
// are left out.
void compress_tiles(int p, int t, std::int64_t blocks, std::int64_t bins, int cell_bytes,
                    const std::uint8_t* cells, CompressedTiles& out);
// Compresses the tiles of a level row by row (a row: one block's bins),
// through one scratch buffer for all of them.
class TileCompressor {
 public:
  // Appends to `out` the tiles of row `block` of level (p, t): `bins` cells
  // of `cell_bytes` bytes each at `cells`. All-zero tiles are left out.
  void compress_row(int p, int t, std::int64_t block, std::int64_t bins, int cell_bytes, const std::uint8_t* cells,
                    CompressedTiles& out);

 private:
  // Appends the stored blob of the `bytes` bytes at `raw`; returns its size.
  std::size_t compress(const std::uint8_t* raw, std::size_t bytes, std::vector<std::uint8_t>& out);
  std::vector<std::uint8_t> scratch_;
};
// Puts the tiles in the order of the tables' primary key, in which inserts
// append to the b-tree (the bytes stay where they are).
void sort_tiles_by_key(CompressedTiles& tiles);
// Inserts the tiles into `table` (made by create_tile_table).
void insert_tiles(Database& db, const std::string& table, const CompressedTiles& tiles);
// Both, for one level.
void write_tiles(Database& db, const std::string& table, int p, int t, std::int64_t blocks,
                 std::int64_t bins, int cell_bytes, const std::uint8_t* cells);

// The cells of one level in a window, dense and row-major: row r holds block
// b0 + r, column c bin i0 + c, `cell_bytes` bytes each; a cell is all zero
// where no tile was stored (nothing happened there). A window's cells are
// about its pixels (the viewer picks the level so), so the grid is small, and
// reading it is a copy per stored tile: no per-cell work in the reader.
struct CellGrid {
  std::int64_t b0 = 0, i0 = 0;
  std::int64_t rows = 0, columns = 0;
  int cell_bytes = 0;
  BigVector<std::uint8_t> bytes;  // huge pages: a window is a few MB, refilled per read

  // The cell of (block, bin), or null outside the grid.
  const std::uint8_t* at(std::int64_t block, std::int64_t bin) const {
    if (block < b0 || block >= b0 + rows || bin < i0 || bin >= i0 + columns) return nullptr;
    return bytes.data() + static_cast<std::size_t>(((block - b0) * columns + (bin - i0)) * cell_bytes);
  }
  const std::uint8_t* cell(std::int64_t row, std::int64_t column) const {
    return bytes.data() + static_cast<std::size_t>((row * columns + column) * cell_bytes);
  }
  // The bins [first, last] around `bin` in `block`'s row whose cells equal
  // the one at `bin` (a run of one class, or of one set of values).
  std::pair<std::int64_t, std::int64_t> run_around(std::int64_t block, std::int64_t bin) const;
  void clear();
};

// A grid larger than this many bytes is refused as damaged level-of-detail
// facts: the viewer asks for about a cell per pixel.
constexpr std::int64_t kMaxCellGridBytes = std::int64_t{1} << 28;

class TileReader {
 public:
  TileReader(Database& db, const std::string& table);
  // Fills `out` with the cells of level (p, t) in blocks [b0, b1] and bins
  // [i0, i1] (i0 <= i1 < bins, b0 <= b1). `bins` is the level's bin count
  // (the last tile is shorter). Throws weft::Error naming the file for a
  // damaged tile or a grid over kMaxCellGridBytes.
  void read(int p, int t, std::int64_t b0, std::int64_t b1, std::int64_t i0, std::int64_t i1,
            std::int64_t bins, int cell_bytes, CellGrid& out);

 private:
  Database& db_;
  Statement stmt_;
  std::vector<std::uint8_t> scratch_;
};

}  // namespace weft::db
