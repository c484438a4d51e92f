// The narrow integer column (common/narrow_column.h) of the loaded ops'
// regions and the input ops' event ids: 1, 2 or 4 bytes per value by the
// values' bound, every value read back as it was set, those that do not fit
// the width (a damaged store's region, a long gap between event ids) through
// the values kept aside.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "common/narrow_column.h"

using weft::NarrowColumn;

namespace {

// Sets `regions` on a column sized for references below `region_end`,
// gathering the misfits as the loader does, and returns the column.
NarrowColumn column_of(const std::vector<std::int64_t>& regions, std::int64_t region_end) {
  NarrowColumn column;
  column.resize(regions.size(), NarrowColumn::width_below(region_end));
  std::vector<NarrowColumn::Misfit> misfits;
  for (std::size_t op = 0; op < regions.size(); ++op)
    if (!column.set(op, regions[op])) misfits.push_back({op, static_cast<std::int32_t>(regions[op])});
  column.keep_aside(std::move(misfits));
  return column;
}

std::vector<std::int32_t> read_back(const NarrowColumn& column) {
  std::vector<std::int32_t> out;
  for (std::size_t op = 0; op < column.size(); ++op) out.push_back(column[op]);
  return out;
}

}  // namespace

TEST(NarrowColumn, TheWidthFollowsTheValuesBound) {
  EXPECT_EQ(NarrowColumn::width_below(12), 1u);
  EXPECT_EQ(NarrowColumn::width_below(255), 1u);  // values 0..254: 255 is the escape
  EXPECT_EQ(NarrowColumn::width_below(256), 2u);
  EXPECT_EQ(NarrowColumn::width_below(65535), 2u);
  EXPECT_EQ(NarrowColumn::width_below(65536), 4u);
  NarrowColumn column;
  column.resize(10, 2);
  EXPECT_EQ(column.width(), 2u);
  EXPECT_EQ(column.size(), 10u);
}

TEST(NarrowColumn, EveryReferenceReadsBackAsSetInEachWidth) {
  const std::vector<std::int64_t> small = {0, 3, 254, 7, 7, 1};
  EXPECT_EQ(read_back(column_of(small, 255)), (std::vector<std::int32_t>{0, 3, 254, 7, 7, 1}));
  const std::vector<std::int64_t> medium = {0, 300, 65534, 255, 1};
  EXPECT_EQ(read_back(column_of(medium, 65535)), (std::vector<std::int32_t>{0, 300, 65534, 255, 1}));
  const std::vector<std::int64_t> large = {0, 70000, (std::int64_t{1} << 24) - 1, 65535};
  EXPECT_EQ(read_back(column_of(large, std::int64_t{1} << 24)),
            (std::vector<std::int32_t>{0, 70000, (1 << 24) - 1, 65535}));
}

TEST(NarrowColumn, ReferencesPastTheTableAreKeptAsideUnchanged) {
  // A table of 10 regions: 1 byte per op; 255, 1000, -1 and 70000 do not fit.
  const std::vector<std::int64_t> regions = {2, 255, 9, 1000, -1, 4, 70000, 255};
  const NarrowColumn column = column_of(regions, 10);
  EXPECT_EQ(column.width(), 1u);
  EXPECT_EQ(read_back(column), (std::vector<std::int32_t>{2, 255, 9, 1000, -1, 4, 70000, 255}));
  // The same in 2 bytes.
  const NarrowColumn wider = column_of({300, 65535, 100000, 5}, 400);
  EXPECT_EQ(wider.width(), 2u);
  EXPECT_EQ(read_back(wider), (std::vector<std::int32_t>{300, 65535, 100000, 5}));
}

TEST(NarrowColumn, TwoThreadsSetDistinctOps) {
  constexpr std::size_t kOps = 100000;
  NarrowColumn column;
  column.resize(kOps, NarrowColumn::width_below(200));
  std::vector<NarrowColumn::Misfit> lower, upper;
  auto fill = [&](std::size_t first, std::size_t end, std::vector<NarrowColumn::Misfit>& misfits) {
    for (std::size_t op = first; op < end; ++op) {
      const auto region = static_cast<std::int64_t>(op % 7 == 0 ? 1000 + op : op % 200);
      if (!column.set(op, region)) misfits.push_back({op, static_cast<std::int32_t>(region)});
    }
  };
  std::thread other(fill, kOps / 2, kOps, std::ref(upper));
  fill(0, kOps / 2, lower);
  other.join();
  lower.insert(lower.end(), upper.begin(), upper.end());
  column.keep_aside(std::move(lower));
  for (std::size_t op = 0; op < kOps; ++op)
    ASSERT_EQ(column[op], static_cast<std::int32_t>(op % 7 == 0 ? 1000 + op : op % 200)) << op;
}

TEST(NarrowColumn, ReleasedItHoldsNothing) {
  NarrowColumn column = column_of({1, 2, 300}, 10);
  NarrowColumn().swap(column);
  EXPECT_EQ(column.size(), 0u);
  EXPECT_EQ(column.width(), 0u);
}
