#include "summary/lod_tiles.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <tuple>

#include "common/error.h"
#include "store/adler32.h"

namespace weft::db {

void create_tile_table(Database& db, const std::string& table) {
  db.exec("DROP TABLE IF EXISTS " + table);
  db.exec("CREATE TABLE " + table +
          "(plevel INTEGER NOT NULL, tlevel INTEGER NOT NULL, block INTEGER NOT NULL,"
          " tile INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY(plevel, tlevel, block, tile))"
          " WITHOUT ROWID");
}

namespace {

// One deflate stream for all the tiles of a level, reset between them:
// compress2() per tile set up and tore down zlib's ~270 KB state each time,
// a third of the compression of the thousands of small tiles of a level of
// detail. Compression level 1, with a state sized for tiles of at most a
// few KB: every reset clears the match hash table, 64 KB at zlib's default
// memory level and two thirds of the compression's instructions for these
// tiles; at memory level 4 it is 4 KB. The tiles are long runs of repeated cells, found as
// well by the smaller table: the stored bytes grew by 0.006% (stencil2d,
// 4,096 processes, every step and activity tile). An 8 KB window holds the
// largest tile whole (kLodTileBins cells of 5 bytes, the step level of detail's).
constexpr int kTileWindowBits = 13;
constexpr int kTileMemLevel = 4;

// The zlib stream header (RFC 1950) that zlib writes for these settings:
// deflate with a 2^kTileWindowBits window, "fastest" level flags, and the
// check bits that make the 16-bit header a multiple of 31.
constexpr std::uint8_t kTileStreamMethod = 8 | (kTileWindowBits - 8) << 4;
constexpr std::uint8_t kTileStreamFlags = 31 - (kTileStreamMethod << 8) % 31;
static_assert((kTileStreamMethod << 8 | kTileStreamFlags) % 31 == 0);
constexpr std::size_t kTileStreamFraming = 2 + 4;  // the header and the Adler-32 trailer

}  // namespace

// Writes zlib streams: the header, raw deflate, and the Adler-32 of the
// input, big-endian. zlib's own wrapper writes the same bytes (the tests
// compare), but sums the checksum a byte at a time (store/adler32.h).
class TileDeflater {
 public:
  TileDeflater() {
    if (deflateInit2(&stream_, 1, Z_DEFLATED, -kTileWindowBits, kTileMemLevel, Z_DEFAULT_STRATEGY) != Z_OK)
      throw Error("cannot start compressing level-of-detail tiles");
  }
  TileDeflater(const TileDeflater&) = delete;
  TileDeflater& operator=(const TileDeflater&) = delete;
  ~TileDeflater() { deflateEnd(&stream_); }

  // Appends the zlib stream of the `bytes` bytes at `raw` to `out`; returns
  // its size. Compressed into a scratch buffer of deflateBound's size first:
  // resizing `out` by the bound zero-filled ~8 KB per tile for the ~100
  // bytes the tile compresses to.
  std::size_t compress(const std::uint8_t* raw, std::size_t bytes, std::vector<std::uint8_t>& out) {
    const std::size_t bound = deflateBound(&stream_, static_cast<uLong>(bytes)) + kTileStreamFraming;
    if (scratch_size_ < bound) {
      scratch_ = std::make_unique_for_overwrite<std::uint8_t[]>(bound);
      scratch_size_ = bound;
    }
    std::uint8_t* const scratch = scratch_.get();
    scratch[0] = kTileStreamMethod;
    scratch[1] = kTileStreamFlags;
    stream_.next_in = const_cast<Bytef*>(raw);  // zlib's API is not const; it only reads
    stream_.avail_in = static_cast<uInt>(bytes);
    stream_.next_out = scratch + 2;
    stream_.avail_out = static_cast<uInt>(bound - kTileStreamFraming);
    if (deflate(&stream_, Z_FINISH) != Z_STREAM_END) throw Error("cannot compress a level-of-detail tile");
    std::size_t size = 2 + (bound - kTileStreamFraming - stream_.avail_out);
    const std::uint32_t check = update_adler32(1, raw, bytes);
    for (int shift = 24; shift >= 0; shift -= 8) scratch[size++] = static_cast<std::uint8_t>(check >> shift);
    out.insert(out.end(), scratch, scratch + size);
    deflateReset(&stream_);
    return size;
  }

 private:
  z_stream stream_{};
  std::unique_ptr<std::uint8_t[]> scratch_;
  std::size_t scratch_size_ = 0;
};

namespace {

// Whether `bytes` bytes at `p` are all 0, compared 64 bytes at a time (a byte
// loop was ~3 instructions per byte of every tile).
bool all_zero(const std::uint8_t* p, std::size_t bytes) {
  static constexpr std::uint8_t kZeros[64] = {};
  for (; bytes >= sizeof kZeros; p += sizeof kZeros, bytes -= sizeof kZeros)
    if (std::memcmp(p, kZeros, sizeof kZeros) != 0) return false;
  return std::memcmp(p, kZeros, bytes) == 0;
}

}  // namespace

TileCompressor::TileCompressor() : deflater_(std::make_unique<TileDeflater>()) {}
TileCompressor::~TileCompressor() = default;

void TileCompressor::compress_row(int p, int t, std::int64_t block, std::int64_t bins, int cell_bytes,
                                  const std::uint8_t* cells, CompressedTiles& out) {
  const auto width = static_cast<std::size_t>(cell_bytes);
  for (std::int64_t first = 0; first < bins; first += kLodTileBins) {
    const std::int64_t count = std::min(kLodTileBins, bins - first);
    const std::uint8_t* raw = cells + static_cast<std::size_t>(first) * width;
    const std::size_t bytes = static_cast<std::size_t>(count) * width;
    if (all_zero(raw, bytes)) continue;
    const std::size_t offset = out.bytes.size();
    const std::size_t size = deflater_->compress(raw, bytes, out.bytes);
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
    std::span<const std::uint8_t> blob = stmt_.column_blob(2);
    scratch_.resize(static_cast<std::size_t>(count) * width);
    uLongf size = static_cast<uLongf>(scratch_.size());
    if (uncompress(scratch_.data(), &size, blob.data(), static_cast<uLong>(blob.size())) != Z_OK ||
        size != scratch_.size())
      throw Error(db_.path(), "corrupt level-of-detail tile");
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
