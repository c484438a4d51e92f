#pragma once
// `weft import PROG.sts`: one Charm++ Projections run (the .sts definitions
// and one PROG.N.log[.gz] per PE) → one .weft database (docs/schema.md,
// "Charm++ runs").
//
// PEs are read one at a time, each log in one streaming pass, in PE order so
// that event ids come out contiguous per PE; only the compact creation and
// receipt lists (for message matching), the chare table and the AMPI
// brackets outlive a PE. Messages are matched after the last PE: a creation
// (src PE, event number) triggers every execution whose BEGIN_PROCESSING
// carries that pair. The output appears atomically (store/atomic_output.h),
// with the same options, progress and error contract as the OTF2 importer.
#include "otf2/otf2_importer.h"

namespace weft::db {

// options.trace_path is the .sts file. summary.records counts log records
// (every line but the headers), summary.messages the stored message rows.
ImportSummary import_projections(const ImportOptions& options);

// Whether `path` names a Projections definitions file (by its .sts suffix).
bool is_projections_path(const std::string& path);

}  // namespace weft::db
