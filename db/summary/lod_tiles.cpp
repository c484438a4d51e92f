#include "summary/lod_tiles.h"

#include <lz4.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <span>
#include <string>
#include <tuple>

#include "common/error.h"
#include "store/schema.h"

namespace weft::db {

void create_tile_table(Database& db, const std::string& table) {
  // Its tiles will be LZ4 blocks, which a weft of schema version 2 reads as damaged.
  raise_schema_version(db);
  db.exec("DROP TABLE IF EXISTS " + table);
  db.exec("CREATE TABLE " + table +
          "(plevel INTEGER NOT NULL, tlevel INTEGER NOT NULL, block INTEGER NOT NULL,"
          " tile INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY(plevel, tlevel, block, tile))"
          " WITHOUT ROWID");
}

namespace {

// The tag before a tile's LZ4 block. A zlib stream, which earlier files hold,
// starts with its method byte, whose low 4 bits are 8 (deflate): this tag's
// are 12, so the two cannot be mistaken for each other.
//
// Why LZ4 rather than zlib: the tiles are small (at most kLodTileBins cells)
// and mostly long runs of one cell, and there are many of them: 4,094 of
// 355-705 bytes at 1,024 processes × 20 iterations. zlib at level 1 took
// ~2.5 µs per tile there (10 ms, a tenth of the analysis' CPU time, much of
// it on the helper thread that ends the write phase); LZ4 takes 0.27 µs, and
// its tiles are 9% larger (19% for the activity level of detail, 0.7% of
// the file). Reading them back is faster too.
// LZ4's block has no checksum: a damaged tile fails LZ4's bounds checks or
// the exact size the reader expects, or shows wrong cells (as a damaged
// cell of any other table would); SQLite keeps no checksums either.
constexpr std::uint8_t kLz4TileTag = 0x4C;  // 'L'
static_assert((kLz4TileTag & 0x0F) != 8);

// Decompresses `blob` into exactly `raw.size()` bytes at `raw`, from an LZ4
// tile or a zlib stream (files written before the LZ4 tiles); false when the
// blob is damaged.
bool decompress_tile(std::span<const std::uint8_t> blob, std::span<std::uint8_t> raw) {
  if (!blob.empty() && blob[0] == kLz4TileTag) {
    if (blob.size() - 1 > static_cast<std::size_t>(INT_MAX) || raw.size() > static_cast<std::size_t>(INT_MAX))
      return false;
    const int size = LZ4_decompress_safe(reinterpret_cast<const char*>(blob.data() + 1),
                                         reinterpret_cast<char*>(raw.data()), static_cast<int>(blob.size() - 1),
                                         static_cast<int>(raw.size()));
    return size >= 0 && static_cast<std::size_t>(size) == raw.size();
  }
  uLongf size = static_cast<uLongf>(raw.size());
  return uncompress(raw.data(), &size, blob.data(), static_cast<uLong>(blob.size())) == Z_OK && size == raw.size();
}

// Whether `bytes` bytes at `p` are all 0, compared 64 bytes at a time (a byte
// loop was ~3 instructions per byte of every tile).
bool all_zero(const std::uint8_t* p, std::size_t bytes) {
  static constexpr std::uint8_t kZeros[64] = {};
  for (; bytes >= sizeof kZeros; p += sizeof kZeros, bytes -= sizeof kZeros)
    if (std::memcmp(p, kZeros, sizeof kZeros) != 0) return false;
  return std::memcmp(p, kZeros, bytes) == 0;
}

}  // namespace

std::size_t TileCompressor::compress(const std::uint8_t* raw, std::size_t bytes, std::vector<std::uint8_t>& out) {
  // A tile is at most kLodTileBins cells of a few bytes, far under LZ4's
  // limit (~2 GB).
  if (bytes > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE))
    throw Error("level-of-detail tile of " + std::to_string(bytes) + " bytes is too large to compress");
  const int bound = LZ4_compressBound(static_cast<int>(bytes));
  // Through a scratch buffer: resizing `out` by the bound would zero-fill
  // ~8 KB per tile for the ~100 bytes the tile compresses to.
  if (scratch_.size() < static_cast<std::size_t>(bound) + 1) scratch_.resize(static_cast<std::size_t>(bound) + 1);
  scratch_[0] = kLz4TileTag;
  const int size = LZ4_compress_default(reinterpret_cast<const char*>(raw), reinterpret_cast<char*>(scratch_.data() + 1),
                                        static_cast<int>(bytes), bound);
  if (size <= 0) throw Error("cannot compress a level-of-detail tile");
  out.insert(out.end(), scratch_.begin(), scratch_.begin() + size + 1);
  return static_cast<std::size_t>(size) + 1;
}

void TileCompressor::compress_row(int p, int t, std::int64_t block, std::int64_t bins, int cell_bytes,
                                  const std::uint8_t* cells, CompressedTiles& out) {
  const auto width = static_cast<std::size_t>(cell_bytes);
  for (std::int64_t first = 0; first < bins; first += kLodTileBins) {
    const std::int64_t count = std::min(kLodTileBins, bins - first);
    const std::uint8_t* raw = cells + static_cast<std::size_t>(first) * width;
    const std::size_t bytes = static_cast<std::size_t>(count) * width;
    if (all_zero(raw, bytes)) continue;
    const std::size_t offset = out.bytes.size();
    const std::size_t size = compress(raw, bytes, out.bytes);
    out.tiles.push_back({p, t, block, first / kLodTileBins, offset, size});
  }
}

void compress_tiles(int p, int t, std::int64_t blocks, std::int64_t bins, int cell_bytes,
                    const std::uint8_t* cells, CompressedTiles& out) {
  TileCompressor compressor;
  const auto row = static_cast<std::size_t>(bins * cell_bytes);
  for (std::int64_t b = 0; b < blocks; ++b)
    compressor.compress_row(p, t, b, bins, cell_bytes, cells + static_cast<std::size_t>(b) * row, out);
}

void sort_tiles_by_key(CompressedTiles& tiles) {
  std::sort(tiles.tiles.begin(), tiles.tiles.end(), [](const CompressedTiles::Tile& a, const CompressedTiles::Tile& b) {
    return std::tie(a.plevel, a.tlevel, a.block, a.tile) < std::tie(b.plevel, b.tlevel, b.block, b.tile);
  });
}

void insert_tiles(Database& db, const std::string& table, const CompressedTiles& tiles) {
  Statement put(db, "INSERT INTO " + table + " VALUES (?1, ?2, ?3, ?4, ?5)");
  for (const CompressedTiles::Tile& tile : tiles.tiles) {
    put.bind(1, static_cast<std::int64_t>(tile.plevel));
    put.bind(2, static_cast<std::int64_t>(tile.tlevel));
    put.bind(3, tile.block);
    put.bind(4, tile.tile);
    put.bind_blob_static(5, tiles.bytes.data() + tile.offset, tile.size);
    put.run();
  }
}

void write_tiles(Database& db, const std::string& table, int p, int t, std::int64_t blocks,
                 std::int64_t bins, int cell_bytes, const std::uint8_t* cells) {
  CompressedTiles tiles;
  compress_tiles(p, t, blocks, bins, cell_bytes, cells, tiles);
  insert_tiles(db, table, tiles);
}

TileReader::TileReader(Database& db, const std::string& table)
    : db_(db),
      stmt_(db, "SELECT block, tile, data FROM " + table +
                    " WHERE plevel = ?1 AND tlevel = ?2 AND block BETWEEN ?3 AND ?4"
                    " AND tile BETWEEN ?5 AND ?6") {}

void TileReader::read(int p, int t, std::int64_t b0, std::int64_t b1, std::int64_t i0, std::int64_t i1,
                      std::int64_t bins, int cell_bytes, CellGrid& out) {
  out.b0 = b0;
  out.i0 = i0;
  out.rows = std::max<std::int64_t>(b1 - b0 + 1, 0);
  out.columns = std::max<std::int64_t>(i1 - i0 + 1, 0);
  out.cell_bytes = cell_bytes;
  const auto width = static_cast<std::size_t>(cell_bytes);
  if (out.rows > 0 && out.columns > kMaxCellGridBytes / out.rows / cell_bytes)
    throw Error(db_.path(), "level-of-detail window of " + std::to_string(out.rows) + " x " +
                                std::to_string(out.columns) + " cells: damaged level-of-detail facts");
  out.bytes.assign(static_cast<std::size_t>(out.rows * out.columns) * width, 0);
  if (out.rows == 0 || out.columns == 0) return;
  stmt_.bind(1, static_cast<std::int64_t>(p));
  stmt_.bind(2, static_cast<std::int64_t>(t));
  stmt_.bind(3, b0);
  stmt_.bind(4, b1);
  stmt_.bind(5, i0 / kLodTileBins);
  stmt_.bind(6, i1 / kLodTileBins);
  while (stmt_.step()) {
    const std::int64_t block = stmt_.column_int(0);
    const std::int64_t first = stmt_.column_int(1) * kLodTileBins;
    const std::int64_t count = std::min(kLodTileBins, bins - first);
    if (count <= 0) throw Error(db_.path(), "level-of-detail tile beyond the last bin");
    if (block < b0 || block > b1) throw Error(db_.path(), "level-of-detail tile outside its query");
    scratch_.resize(static_cast<std::size_t>(count) * width);
    if (!decompress_tile(stmt_.column_blob(2), scratch_)) throw Error(db_.path(), "corrupt level-of-detail tile");
    const std::int64_t lo = std::max(first, i0), hi = std::min(first + count - 1, i1);
    if (lo > hi) continue;
    std::copy_n(scratch_.data() + static_cast<std::size_t>(lo - first) * width,
                static_cast<std::size_t>(hi - lo + 1) * width,
                out.bytes.data() + static_cast<std::size_t>((block - b0) * out.columns + (lo - i0)) * width);
  }
  stmt_.reset();
}

std::pair<std::int64_t, std::int64_t> CellGrid::run_around(std::int64_t block, std::int64_t bin) const {
  const std::uint8_t* here = at(block, bin);
  if (!here) return {bin, bin};
  auto same = [&](std::int64_t b) {
    const std::uint8_t* c = at(block, b);
    return c && std::equal(c, c + cell_bytes, here);
  };
  std::int64_t first = bin, last = bin;
  while (same(first - 1)) --first;
  while (same(last + 1)) ++last;
  return {first, last};
}

void CellGrid::clear() {
  rows = columns = 0;
  bytes.clear();
}

}  // namespace weft::db
