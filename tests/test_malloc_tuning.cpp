// AnalysisMalloc (app/malloc_tuning.h): around an analysis the heap is never
// trimmed; afterwards the freed heap goes back to the kernel when more work
// follows (the viewer's summaries), and is left for the exit to free whole
// otherwise (`weft analyze` of a run that has its summaries).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "app/malloc_tuning.h"
#include "weft_test_db.h"

namespace {

// Blocks of 1 MiB, written (resident) and freed under an AnalysisMalloc: as
// an analysis' arrays are, into the heap's top.
void allocate_and_free_32_mib() {
  std::vector<void*> blocks;
  for (int i = 0; i < 32; ++i) {
    void* b = std::malloc(std::size_t{1} << 20);
    ASSERT_NE(b, nullptr);
    std::memset(b, 1, std::size_t{1} << 20);
    blocks.push_back(b);
  }
  for (void* b : blocks) std::free(b);
}

}  // namespace

TEST(AnalysisMalloc, GivesTheFreedHeapBackOnlyWhenMoreWorkFollows) {
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the settings are glibc malloc's (AddressSanitizer replaces it)";
#else
  weft::testing::TestTrace trace;
  trace.events = {{0, 0, 100, 0, 0}};
  const std::string path = weft::testing::temp_weft_path("malloc");
  weft::testing::write_test_weft(path, trace);
  weft::db::Database db(path, weft::db::Database::Mode::ReadWrite);
  using Then = weft::app::AnalysisMalloc::Then;
  {
    const weft::app::AnalysisMalloc analysis(db, Then::Exit);
    allocate_and_free_32_mib();
  }
  // The top of the heap still holds the freed blocks (and the reservation).
  EXPECT_GE(mallinfo2().keepcost, std::size_t{32} << 20);
  {
    const weft::app::AnalysisMalloc analysis(db, Then::MoreWork);
    allocate_and_free_32_mib();
  }
  // Trimmed: what is left at the top is glibc's pad.
  EXPECT_LT(mallinfo2().keepcost, std::size_t{1} << 20);
#endif
}
