#pragma once
// Range reads of an AMPI run's virtual ranks for the virtual-rank lanes and
// the migration ribbons: only the ranks and the time span on screen, through
// the virtual_ranks_by_vp index, so a 64K-rank run reads one window's rows.
#include <cstdint>
#include <vector>

#include "projections/virtual_ranks.h"
#include "store/sqlite.h"

namespace weft::db {

// Distinct virtual ranks (meta count_virtual_ranks; 0 for runs without AMPI
// brackets and for OTF2 runs).
std::int64_t count_virtual_ranks(Database& db);

// The spans of ranks [vp0, vp1) that overlap [t0_ns, t1_ns], by vp then time.
std::vector<VirtualRankSpan> read_rank_spans(Database& db, std::int64_t vp0, std::int64_t vp1, TimeNs t0_ns,
                                             TimeNs t1_ns);

// The migrations at times in [t0_ns, t1_ns], by vp then time.
std::vector<Migration> read_migrations(Database& db, TimeNs t0_ns, TimeNs t1_ns);

}  // namespace weft::db
