#pragma once
// The Projections utilization summaries of a Charm++ run (ampi-projections.txt
// §2): per PE, time in entry methods (busy) and in recorded idle intervals,
// and per PE x entry method the time of the usage profile. Written once at
// import from one streaming pass over the events, so that the PE view's
// labels and λ and the usage profile never scan events per frame.
//
// Tables (docs/schema.md, "Charm++ views"):
//   pe_utilization(pe, busy_ns, idle_ns, span_ns)
//   pe_entry_time(pe, entry_region, time_ns): entry_region -1 is "other"
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "store/sqlite.h"

namespace weft::db {

// Entry methods kept by name in the usage profile; the rest add up to "other".
inline constexpr int kProfileTopEntries = 8;
inline constexpr std::int64_t kOtherEntry = -1;

struct PeUtilizationTable {
  TimeNs span_ns = 0;               // run end - run begin (first to last depth-0 event)
  std::vector<TimeNs> busy, idle;   // per PE
};

struct UsageProfile {
  std::vector<std::int64_t> entries;  // region ids, most total time first; kOtherEntry last when present
  std::int32_t pes = 0;
  std::vector<TimeNs> time;           // pes x entries.size(), PE-major
  TimeNs at(std::int32_t pe, std::size_t entry) const {
    return time[static_cast<std::size_t>(pe) * entries.size() + entry];
  }
};

// Writes both tables for a Projections run (replacing them); no-op otherwise.
void write_pe_usage(Database& db);
// True when the run is not a Projections run or both tables exist.
bool has_pe_usage(Database& db);

PeUtilizationTable read_pe_utilization(Database& db);
UsageProfile read_usage_profile(Database& db);

}  // namespace weft::db
