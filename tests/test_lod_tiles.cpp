// The level-of-detail tiles' codec (db/summary/lod_tiles.h): tiles are
// written as a tag and an LZ4 block, left out when all zero, and read back
// through the table as the cells they hold; the zlib tiles of files written
// before still read; a damaged tile is an error naming the file.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "summary/lod_tiles.h"
#include "weft_test_db.h"

using namespace weft;

namespace {

constexpr int kCellBytes = 5;
constexpr std::int64_t kBins = 2500;  // three tiles per row: 1,024, 1,024 and 452 bins
constexpr const char* kTable = "test_lod";

// Two rows of kBins five-byte cells: row 0 long runs of one cell over its
// first tile, then zeros (its second and third tiles are all zero); row 1
// random cells.
std::vector<std::uint8_t> test_cells() {
  std::vector<std::uint8_t> cells(2 * kBins * kCellBytes, 0);
  std::mt19937 rng(3);
  for (std::int64_t bin = 0; bin < kBins; ++bin)
    for (int f = 0; f < kCellBytes; ++f) {
      const auto i = static_cast<std::size_t>(bin * kCellBytes + f);
      cells[i] = bin < 1024 ? static_cast<std::uint8_t>(bin / 100 + f) : 0;
      cells[static_cast<std::size_t>(kBins * kCellBytes) + i] = static_cast<std::uint8_t>(rng());
    }
  return cells;
}

// Reads bins [i0, i1] of both rows of level (2, 3) of `path`'s table.
db::CellGrid read_window(const std::string& path, std::int64_t i0, std::int64_t i1) {
  db::Database db(path, db::Database::Mode::ReadOnly);
  db::TileReader reader(db, kTable);
  db::CellGrid grid;
  reader.read(2, 3, 0, 1, i0, i1, kBins, kCellBytes, grid);
  return grid;
}

// The cells of bins [i0, i1] of both rows, as a CellGrid holds them.
std::vector<std::uint8_t, HugePageAllocator<std::uint8_t>> expected_window(const std::vector<std::uint8_t>& cells, std::int64_t i0, std::int64_t i1) {
  std::vector<std::uint8_t, HugePageAllocator<std::uint8_t>> out;
  for (std::int64_t row = 0; row < 2; ++row) {
    const auto begin = cells.begin() + static_cast<std::ptrdiff_t>((row * kBins + i0) * kCellBytes);
    out.insert(out.end(), begin, begin + static_cast<std::ptrdiff_t>((i1 - i0 + 1) * kCellBytes));
  }
  return out;
}

// A database at `path` whose table holds `tiles`.
void write_table(const std::string& path, const db::CompressedTiles& tiles) {
  db::Database db(path, db::Database::Mode::Create);
  db::create_tile_table(db, kTable);
  db::insert_tiles(db, kTable, tiles);
}

}  // namespace

TEST(LodTiles, TilesReadBackAsTheirCellsAndAllZeroTilesAreLeftOut) {
  const std::vector<std::uint8_t> cells = test_cells();
  db::CompressedTiles tiles;
  db::compress_tiles(2, 3, 2, kBins, kCellBytes, cells.data(), tiles);
  ASSERT_EQ(tiles.tiles.size(), 4u);  // row 0's second and third tiles are all zero
  for (const db::CompressedTiles::Tile& tile : tiles.tiles) {
    ASSERT_GT(tile.size, 1u);
    EXPECT_EQ(tiles.bytes[tile.offset], 'L') << "block " << tile.block << " tile " << tile.tile;  // an LZ4 tile
  }
  // Row 0's runs compress; row 1's random cells cannot (LZ4 stores them with
  // a few bytes of framing).
  EXPECT_LT(tiles.tiles[0].size, 1024u * kCellBytes / 20);
  EXPECT_GE(tiles.tiles[1].size, 1024u * kCellBytes);
  const std::string path = weft::testing::temp_weft_path("tiles");
  write_table(path, tiles);
  for (auto [i0, i1] : {std::pair<std::int64_t, std::int64_t>{0, kBins - 1}, {1000, 1100}, {2047, 2048}, {2400, 2499}})
    EXPECT_EQ(read_window(path, i0, i1).bytes, expected_window(cells, i0, i1)) << "bins " << i0 << ".." << i1;
}

TEST(LodTiles, ZlibTilesOfEarlierFilesStillRead) {
  // Files written before the LZ4 tiles hold zlib streams (level 1, a 2^13
  // window, zlib's wrapper: what weft wrote then).
  const std::vector<std::uint8_t> cells = test_cells();
  db::CompressedTiles tiles;
  for (std::int64_t block = 0; block < 2; ++block)
    for (std::int64_t tile = 0; tile < 3; ++tile) {
      const std::int64_t first = tile * db::kLodTileBins, count = std::min(db::kLodTileBins, kBins - first);
      const std::uint8_t* raw = cells.data() + (block * kBins + first) * kCellBytes;
      const auto bytes = static_cast<uLong>(count * kCellBytes);
      z_stream s{};
      ASSERT_EQ(deflateInit2(&s, 1, Z_DEFLATED, 13, 4, Z_DEFAULT_STRATEGY), Z_OK);
      std::vector<std::uint8_t> stream(deflateBound(&s, bytes));
      s.next_in = const_cast<Bytef*>(raw);
      s.avail_in = static_cast<uInt>(bytes);
      s.next_out = stream.data();
      s.avail_out = static_cast<uInt>(stream.size());
      ASSERT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
      stream.resize(stream.size() - s.avail_out);
      deflateEnd(&s);
      tiles.tiles.push_back({2, 3, block, tile, tiles.bytes.size(), stream.size()});
      tiles.bytes.insert(tiles.bytes.end(), stream.begin(), stream.end());
    }
  const std::string path = weft::testing::temp_weft_path("zlib_tiles");
  write_table(path, tiles);
  EXPECT_EQ(read_window(path, 0, kBins - 1).bytes, expected_window(cells, 0, kBins - 1));
}

TEST(LodTiles, DamagedTilesAreErrorsNamingTheFile) {
  const std::vector<std::uint8_t> cells = test_cells();
  db::CompressedTiles good;
  db::compress_tiles(2, 3, 2, kBins, kCellBytes, cells.data(), good);
  const db::CompressedTiles::Tile first = good.tiles[0];
  const std::vector<std::uint8_t> stored(good.bytes.begin() + static_cast<std::ptrdiff_t>(first.offset),
                                         good.bytes.begin() + static_cast<std::ptrdiff_t>(first.offset + first.size));
  std::vector<std::uint8_t> garbage(40);
  std::mt19937 rng(5);
  for (std::uint8_t& b : garbage) b = static_cast<std::uint8_t>(rng());
  std::vector<std::uint8_t> tagged_garbage = garbage;
  tagged_garbage[0] = 'L';
  const std::vector<std::vector<std::uint8_t>> damaged = {
      std::vector<std::uint8_t>(stored.begin(), stored.end() - 1),  // truncated
      tagged_garbage,                                             // an LZ4 tag, then noise
      garbage,                                                    // neither LZ4 nor zlib
      {'L'},                                                      // the tag alone
  };
  for (std::size_t k = 0; k < damaged.size(); ++k) {
    db::CompressedTiles tiles;
    tiles.tiles.push_back({2, 3, 0, 0, 0, damaged[k].size()});
    tiles.bytes = damaged[k];
    const std::string path = weft::testing::temp_weft_path("damaged_tile_" + std::to_string(k));
    write_table(path, tiles);
    try {
      read_window(path, 0, 10);
      ADD_FAILURE() << "damaged tile " << k << " was read";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("corrupt level-of-detail tile"), std::string::npos) << e.what();
    }
  }
}
