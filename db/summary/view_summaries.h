#pragma once
// The whole-run summaries the viewer reads instead of events: the start
// histogram under the timeline slider and the physical timeline's level of
// detail. Both depend on the events only, so they are written once per import
// (with the analysis) and again only when missing.
#include "store/sqlite.h"

namespace weft::db {

void write_view_summaries(Database& db);
bool has_view_summaries(Database& db);

}  // namespace weft::db
