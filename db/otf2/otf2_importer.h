#pragma once
// `weft import`: one OTF2 archive → one .weft database (docs/schema.md).
//
// Locations are read with a local event reader each and decoded in one pass
// by workers on every core, which also pack each location's events into
// time-bucketed blocks; the locations are committed in process order, where
// messages and collectives are matched (location_workers.h) and written as
// blocks too.
// The output appears atomically (db/store/atomic_output.h).
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "common/types.h"
#include "store/sqlite.h"

namespace weft::db {

struct ImportProgress {
  std::uint64_t records_done = 0;
  std::uint64_t records_total = 0;  // from the location definitions; 0 if unknown
  std::uint64_t locations_done = 0;
  std::uint64_t locations_total = 0;
};
// Called after every location and every 64K records, never per event.
using ImportProgressCallback = std::function<void(const ImportProgress&)>;

// Locations to import, as positions in display order (the processes table).
// The default is all; a sub-range is how a sharded (MPI-parallel) import
// will split the work later (../shared/DESIGN.md, "Scale").
struct LocationRange {
  std::uint64_t first = 0;
  std::uint64_t count = std::numeric_limits<std::uint64_t>::max();
};

struct ImportOptions {
  std::string trace_path;   // the .otf2 anchor file
  std::string output_path;  // RUN.weft
  bool overwrite = false;   // --force: replace an existing output (only once the new one is complete)
  LocationRange locations;
  // Threads: 2 decodes on the calling thread and writes blocks on a second
  // one; 1 does both on the calling thread (less memory traffic, slower).
  int threads = 2;
  // SQLite page cache of the output database during the load, MiB; 0:
  // sized to the trace's bucket count (bulk_load_cache_mib).
  int cache_mib = 0;
  // Event rows a decoding worker holds before it encodes them (a longer
  // location is written in several parts); 0: LocationWorkers::kPieceEvents.
  // Tests make it small.
  std::size_t piece_events = 0;
  ImportProgressCallback progress;
  std::string weft_version = "unknown";  // written to meta.weft_version
  // Runs on the complete database before it is published under output_path
  // (e.g. the structure analysis), so a failure there leaves no output either.
  std::function<void(Database&)> before_publish;
};

struct ImportSummary {
  std::uint64_t processes = 0;
  std::uint64_t records = 0;
  std::uint64_t events = 0;
  std::uint64_t messages = 0;
  std::uint64_t unmatched_sends = 0;
  std::uint64_t unmatched_recvs = 0;
  std::uint64_t collectives = 0;
  std::uint64_t unclosed_regions = 0;
  std::uint64_t unknown_records = 0;
  TimeNs trace_end_ns = 0;
  double seconds = 0;
  // Non-fatal problems, one line each (e.g. unmatched messages).
  std::vector<std::string> warnings;
};

// Throws weft::Error (one line naming the file and the problem) for bad input
// or a failed write; then no output or temporary file is left behind.
ImportSummary import_otf2(const ImportOptions& options);

}  // namespace weft::db
