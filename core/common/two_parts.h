#pragma once
// Runs a pass over [0, end) in two parts, pass(0, 0, split) on the calling
// thread and pass(1, split, end) on a second one, for the analysis passes
// whose parts write disjoint entries (or entries of their own, merged after:
// the first argument says which part it is). With split >= end the whole
// pass runs on the calling thread as part 0. The second part runs on the
// kept thread (beside.h), or after the first on the calling thread when the
// kept thread is busy and the machine has no third core; what it throws is
// rethrown here.
#include <cstdint>

#include "common/beside.h"

namespace weft {

template <class Index, class Pass>
void run_in_two_parts(Index split, Index end, Pass pass) {
  if (split >= end) {
    pass(0, Index{0}, end);
    return;
  }
  // Its destructor waits when part 0 throws.
  BesideJob second([&] { pass(1, split, end); }, BesideJob::IfBusy::CallerWithoutSpareCore);
  pass(0, Index{0}, split);
  second.wait();
}

// Where a pass over `count` items splits for `threads` threads: the middle
// with two or more, `count` (no split) with one thread or under two items.
template <class Index>
Index two_part_split(Index count, int threads) {
  return threads > 1 && count >= 2 ? count / 2 : count;
}

// Whether a pass whose parts each keep their own `entries` entries (merged
// after) runs in two parts over `items` items: with two or more threads, and
// only when the entries are under an eighth of the items, so that the second
// part's copy costs little memory beside the items' own arrays.
inline bool two_copies_are_cheap(std::int64_t entries, std::int64_t items, int threads) {
  return threads > 1 && entries * 8 <= items;
}

}  // namespace weft
