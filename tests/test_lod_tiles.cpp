// The level-of-detail tiles' codec (db/summary/lod_tiles.h): each tile is a
// zlib stream whose deflate is zlib's and whose header and Adler-32 trailer
// are written by weft (db/store/adler32.h). The streams must be the bytes
// zlib's own wrapper writes at the same settings, so that files written
// before and after read alike, and must decompress to the cells.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <random>
#include <vector>

#include "store/adler32.h"
#include "summary/lod_tiles.h"

using namespace weft;

namespace {

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (std::uint8_t& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

std::uint32_t zlib_adler32(std::uint32_t adler, const std::uint8_t* p, std::size_t n) {
  return static_cast<std::uint32_t>(adler32(adler, p, static_cast<uInt>(n)));
}

// zlib's stream of `raw` at the tiles' settings (lod_tiles.cpp): level 1, a
// 2^13-byte window, memory level 4, zlib's wrapper.
std::vector<std::uint8_t> zlib_wrapped(const std::vector<std::uint8_t>& raw) {
  z_stream s{};
  EXPECT_EQ(deflateInit2(&s, 1, Z_DEFLATED, 13, 4, Z_DEFAULT_STRATEGY), Z_OK);
  std::vector<std::uint8_t> out(deflateBound(&s, static_cast<uLong>(raw.size())));
  s.next_in = const_cast<Bytef*>(raw.data());
  s.avail_in = static_cast<uInt>(raw.size());
  s.next_out = out.data();
  s.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
  out.resize(out.size() - s.avail_out);
  deflateEnd(&s);
  return out;
}

}  // namespace

TEST(Adler32, MatchesZlibAtEveryLengthAlignmentAndStart) {
  const std::vector<std::uint8_t> bytes = random_bytes(20000, 7);
  std::mt19937 rng(11);
  // Every length up to 200 (the 32-byte steps and the tail), then lengths
  // around the reduction interval (5,552 bytes) and beyond, at odd offsets
  // and from running sums other than 1.
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 200; ++n) lengths.push_back(n);
  for (std::size_t n : {5520, 5551, 5552, 5553, 5584, 11104, 11135, 19990}) lengths.push_back(n);
  for (std::size_t n : lengths)
    for (std::size_t offset : {0, 1, 7, 31}) {
      if (offset + n > bytes.size()) continue;
      for (std::uint32_t start : {1u, 0xfff0fff0u % 65521u * 65537u, static_cast<std::uint32_t>(rng()) % 65521u}) {
        const std::uint8_t* p = bytes.data() + offset;
        EXPECT_EQ(db::update_adler32(start, p, n), zlib_adler32(start, p, n)) << "length " << n << " offset " << offset;
      }
    }
}

TEST(Adler32, AllOnesBytesReachTheLargestSumsWithoutOverflow) {
  // 0xff bytes make both sums grow fastest: the worst case for the lanes.
  const std::vector<std::uint8_t> ones(3 * 5552 + 45, 0xff);
  for (std::uint32_t start : {1u, (65520u << 16) | 65520u})
    EXPECT_EQ(db::update_adler32(start, ones.data(), ones.size()), zlib_adler32(start, ones.data(), ones.size()));
}

TEST(LodTiles, TilesAreZlibsOwnStreamsAndDecompressToTheCells) {
  // Two rows of 2,500 five-byte cells (three tiles each: 1,024, 1,024, 452
  // bins): long runs of one cell, random cells, and an all-zero tile, which
  // is left out.
  constexpr int kCellBytes = 5;
  constexpr std::int64_t kBins = 2500;
  std::vector<std::uint8_t> cells(2 * kBins * kCellBytes, 0);
  const std::vector<std::uint8_t> noise = random_bytes(cells.size(), 3);
  for (std::int64_t bin = 0; bin < kBins; ++bin)
    for (int f = 0; f < kCellBytes; ++f) {
      const auto i = static_cast<std::size_t>(bin * kCellBytes + f);
      cells[i] = bin < 1024 ? static_cast<std::uint8_t>(bin / 100 + f) : 0;                      // row 0: runs, then zeros
      cells[static_cast<std::size_t>(kBins * kCellBytes) + i] = noise[i];                         // row 1: random
    }
  db::CompressedTiles tiles;
  db::compress_tiles(2, 3, 2, kBins, kCellBytes, cells.data(), tiles);
  ASSERT_EQ(tiles.tiles.size(), 4u);  // row 0's second and third tiles are all zero
  for (const db::CompressedTiles::Tile& tile : tiles.tiles) {
    const std::int64_t first_bin = tile.tile * db::kLodTileBins;
    const std::int64_t count = std::min(db::kLodTileBins, kBins - first_bin);
    const auto begin = cells.begin() + static_cast<std::ptrdiff_t>((tile.block * kBins + first_bin) * kCellBytes);
    const std::vector<std::uint8_t> raw(begin, begin + static_cast<std::ptrdiff_t>(count * kCellBytes));
    const std::vector<std::uint8_t> stored(tiles.bytes.begin() + static_cast<std::ptrdiff_t>(tile.offset),
                                           tiles.bytes.begin() + static_cast<std::ptrdiff_t>(tile.offset + tile.size));
    EXPECT_EQ(stored, zlib_wrapped(raw)) << "block " << tile.block << " tile " << tile.tile;
    std::vector<std::uint8_t> back(raw.size() + 1);
    uLongf size = static_cast<uLongf>(back.size());
    ASSERT_EQ(uncompress(back.data(), &size, stored.data(), static_cast<uLong>(stored.size())), Z_OK);
    back.resize(size);
    EXPECT_EQ(back, raw);
  }
}
