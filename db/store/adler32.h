#pragma once
// Adler-32 (RFC 1950 §9), the checksum that ends every zlib stream, computed
// 32 bytes at a time with AVX2 where the CPU has it (zlib's own, otherwise).
//
// Why: zlib 1.2.13 sums a byte at a time, ~3.3 GB/s here. The step level of
// detail of a long run compresses ~90 MB of cells at 1,024 processes × 320
// iterations into ~3 MB of tiles, and the checksum took 27 ms of the 208
// that level of detail took. The tiles are written as raw deflate framed by hand
// (lod_tiles.cpp), with this checksum: the same bytes zlib's wrapper writes.
#include <cstddef>
#include <cstdint>

namespace weft::db {

// The running checksum `adler` (1 to start) updated with `n` bytes at `data`;
// equal to zlib's adler32(adler, data, n).
std::uint32_t update_adler32(std::uint32_t adler, const std::uint8_t* data, std::size_t n);

}  // namespace weft::db
