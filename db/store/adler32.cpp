#include "store/adler32.h"

#include <zlib.h>

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace weft::db {
namespace {

constexpr std::uint32_t kAdlerBase = 65521;  // the largest prime below 2^16
// zlib's NMAX: the most bytes summed before the two sums must be reduced
// modulo kAdlerBase to stay within 32 bits.
constexpr std::size_t kMaxBytesPerReduction = 5552;

#if defined(__x86_64__)
constexpr std::size_t kLane = 32;  // bytes per AVX2 step

__attribute__((target("avx2"))) std::uint64_t sum_lanes(__m256i v) {
  alignas(32) std::uint32_t lane[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lane), v);
  std::uint64_t sum = 0;
  for (std::uint32_t x : lane) sum += x;
  return sum;
}

// For a run of 32-byte steps x[0..31] that starts with sums (a, b):
// a grows by the bytes' sum, and b by a's value after each byte, which is
// 32·a_before + Σ (32 - i)·x[i] per step. Per 32-bit lane: `bytes` holds the
// byte sums (psadbw, 8 bytes per 64-bit lane), `before` the byte sums of the
// steps before each step (32 times that is what the steps' a_before add),
// `weighted` the Σ (32 - i)·x[i]. Within kMaxBytesPerReduction bytes no lane
// overflows: `before` is at most 173 steps × 173 × 8 × 255 < 2^26.
__attribute__((target("avx2"))) std::uint32_t adler32_avx2(std::uint32_t adler, const std::uint8_t* p,
                                                           std::size_t n) {
  std::uint64_t a = adler & 0xffff, b = adler >> 16;
  const __m256i weights = _mm256_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15,
                                           14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i zero = _mm256_setzero_si256();
  while (n >= kLane) {
    const std::size_t steps = std::min(n, kMaxBytesPerReduction) / kLane;
    __m256i bytes = zero, before = zero, weighted = zero;
    for (std::size_t s = 0; s < steps; ++s, p += kLane) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      before = _mm256_add_epi32(before, bytes);
      bytes = _mm256_add_epi32(bytes, _mm256_sad_epu8(x, zero));
      weighted = _mm256_add_epi32(weighted, _mm256_madd_epi16(_mm256_maddubs_epi16(x, weights), ones));
    }
    n -= steps * kLane;
    b += kLane * steps * a + kLane * sum_lanes(before) + sum_lanes(weighted);
    a += sum_lanes(bytes);
    a %= kAdlerBase;
    b %= kAdlerBase;
  }
  for (; n > 0; --n) {  // under 32 bytes: a and b stay far below 2^64
    a += *p++;
    b += a;
  }
  return static_cast<std::uint32_t>((b % kAdlerBase) << 16 | (a % kAdlerBase));
}
#endif

std::uint32_t adler32_zlib(std::uint32_t adler, const std::uint8_t* data, std::size_t n) {
  // zlib takes lengths as uInt: longer inputs go in pieces.
  while (n > 0) {
    const auto piece = static_cast<uInt>(std::min<std::size_t>(n, std::size_t{1} << 30));
    adler = static_cast<std::uint32_t>(adler32(adler, data, piece));
    data += piece;
    n -= piece;
  }
  return adler;
}

}  // namespace

std::uint32_t update_adler32(std::uint32_t adler, const std::uint8_t* data, std::size_t n) {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return adler32_avx2(adler, data, n);
#endif
  return adler32_zlib(adler, data, n);
}

}  // namespace weft::db
