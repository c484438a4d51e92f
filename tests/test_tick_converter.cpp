// TickConverter (db/otf2/otf2_event_decoder.h): its 64-bit shortcuts give
// exactly the 128-bit conversion's result, at the edges of every path.
#include <gtest/gtest.h>

#include <cstdint>

#include "otf2/otf2_event_decoder.h"

using namespace weft;
using namespace weft::db;

TEST(TickConverter, ShortcutsAgreeWithTheExactConversion) {
  auto exact = [](std::uint64_t resolution, std::uint64_t offset, std::uint64_t ticks) {
    Int128 delta = static_cast<Int128>(ticks) - static_cast<Int128>(offset);
    return static_cast<TimeNs>(delta * 1000000000 / static_cast<Int128>(resolution));
  };
  const std::uint64_t resolutions[] = {1, 3, 1000, 999999937, 1000000000, 2400000000ull,
                                       18446744073ull, 18446744074ull, UINT64_MAX};
  const std::uint64_t values[] = {0, 1, 999, 1000000007, 1ull << 40, 1ull << 62, UINT64_MAX - 1,
                                  UINT64_MAX};
  for (std::uint64_t resolution : resolutions)
    for (std::uint64_t offset : values)
      for (std::uint64_t ticks : values) {
        TickConverter convert{resolution, offset};
        EXPECT_EQ(convert.to_ns(ticks), exact(resolution, offset, ticks))
            << resolution << " " << offset << " " << ticks;
      }
}
