#include "summary/view_summaries.h"

#include "summary/activity_lod.h"
#include "summary/pe_usage.h"
#include "summary/start_histogram.h"

namespace weft::db {

void write_view_summaries(Database& db) {
  write_start_histogram(db);
  write_activity_lod(db);
  write_pe_usage(db);
}

bool has_view_summaries(Database& db) { return has_start_histogram(db) && has_activity_lod(db) && has_pe_usage(db); }

}  // namespace weft::db
