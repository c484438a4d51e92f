#pragma once
// AMPI virtual ranks over time, from the AMPI function brackets (user event
// pairs named AMPI_* / MPI_*) whose nested id is the virtual rank.
//
// A rank's brackets, in time order, form runs on one PE; each change of PE
// is a migration. Its time is the end of the last AMPI_Migrate bracket of
// the rank on the old PE (the moment the rank leaves it), or the end of the
// rank's last bracket there when it migrated without one. The rank is on a
// PE from its first bracket there (or its arrival) to its departure (or its
// last bracket).
#include <cstdint>
#include <vector>

#include "common/types.h"

namespace weft::db {

struct AmpiBracket {
  std::int32_t vp;
  std::int32_t pe;
  TimeNs start_ns;
  TimeNs end_ns;
  bool migrate;  // an AMPI_Migrate call
};

struct VirtualRankSpan {
  std::int32_t vp;
  std::int32_t pe;
  TimeNs start_ns;
  TimeNs end_ns;
};

struct Migration {
  std::int32_t vp;
  std::int32_t from_pe;
  std::int32_t to_pe;
  TimeNs time_ns;
};

struct VirtualRankHistory {
  std::int64_t vps = 0;  // distinct ranks seen
  std::vector<VirtualRankSpan> spans;  // by vp, then time
  std::vector<Migration> migrations;   // by vp, then time
};

// Sorts `brackets` (by vp, then start) and derives the history.
VirtualRankHistory virtual_rank_history(std::vector<AmpiBracket>& brackets);

}  // namespace weft::db
