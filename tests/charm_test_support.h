#pragma once
// Lookups shared by the task-based structure and metric tests: events are
// named by (chare, entry method, which execution of it on that chare, which
// event inside the block), as a reader of the trace would.
#include <gtest/gtest.h>

#include <string>

#include "charm/task_trace.h"

namespace weft::charm::test {

// The k-th execution (0-based, in time order) of `entry` on `chare`.
inline BlockIndex find_block(const TaskTrace& t, ChareIndex chare, const std::string& entry, int k) {
  BlockIndex found = kNone;
  TimeNs found_start = 0;
  int seen = 0;
  // Blocks are sorted by (pe, start), not by time across PEs: collect in time order.
  for (int round = 0; round <= k; ++round) {
    BlockIndex best = kNone;
    for (BlockIndex b = 0; b < t.block_count(); ++b) {
      const auto u = static_cast<std::size_t>(b);
      if (t.block_chare[u] != chare || t.entry_name[static_cast<std::size_t>(t.block_entry[u])] != entry) continue;
      if (round > 0 && (t.block_start[u] < found_start || (t.block_start[u] == found_start && b <= found))) continue;
      if (best == kNone || t.block_start[u] < t.block_start[static_cast<std::size_t>(best)]) best = b;
    }
    if (best == kNone) break;
    found = best;
    found_start = t.block_start[static_cast<std::size_t>(best)];
    ++seen;
  }
  EXPECT_EQ(seen, k + 1) << "no execution " << k << " of " << entry << " on chare " << chare;
  return found;
}

// The i-th dependency event of block b.
inline EventIndex event_in(const TaskTrace& t, BlockIndex b, int i) {
  EventIndex first = kNone;
  int count = 0;
  for (EventIndex e = 0; e < t.event_count(); ++e)
    if (t.event_block[static_cast<std::size_t>(e)] == b) {
      if (first == kNone) first = e;
      ++count;
    }
  EXPECT_LT(i, count) << "block " << b << " has " << count << " events";
  return first + i;
}

}  // namespace weft::charm::test
