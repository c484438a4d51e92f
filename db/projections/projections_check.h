#pragma once
// `weft check` on a Projections run: the invariants of the Charm++ tables
// (docs/schema.md, "Charm++ runs") against the stored events and messages.
// A Projections run has no MPI logical structure to check (yet).
#include <cstdint>
#include <string>
#include <vector>

#include "store/sqlite.h"

namespace weft::db {

struct ProjectionsCheck {
  struct Line {
    std::string what;
    std::int64_t violations;
  };
  std::int64_t events = 0;
  std::int64_t executions = 0;
  std::int64_t messages = 0;
  // Messages executed before their creation time: the PEs of a non-SMP run
  // have separate clocks, so this is reported, not a violation.
  std::int64_t executed_before_created = 0;
  std::vector<Line> lines;
  bool ok() const {
    for (const Line& l : lines)
      if (l.violations) return false;
    return true;
  }
};

ProjectionsCheck check_projections_run(Database& db);

// Whether meta.source_format says `projections`.
bool is_projections_run(Database& db);

}  // namespace weft::db
