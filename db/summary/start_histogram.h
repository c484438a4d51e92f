#pragma once
// How many events start in each time bin of the run, by function class: the
// stacked graph under the timeline slider (particle-animation.txt, "timeline":
// the slider shows where in the run the activity is, so a user can scrub to
// it). Built once from every event (docs/schema.md, "start_histogram"); a
// reader gets the whole run's graph from a few thousand rows.
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/types.h"
#include "store/sqlite.h"

namespace weft::db {

// Function classes of the graph, bottom to top.
enum class StartClass : std::uint8_t { Send, Receive, Wait, Collective, OtherMpi, Compute };
constexpr int kStartClasses = 6;
const char* start_class_name(StartClass c);
StartClass start_class_of(RegionKind kind);

// Region reference -> class, from the regions table.
std::unordered_map<std::int64_t, StartClass> read_region_classes(Database& db);

struct StartHistogram {
  TimeNs bin_ns = 1;  // bin b covers [b * bin_ns, (b + 1) * bin_ns)
  std::int32_t bins = 0;
  // counts[class][bin]
  std::array<std::vector<std::int64_t>, kStartClasses> counts;
  std::int64_t max_stacked = 0;  // the tallest bin, all classes together
};

constexpr std::int32_t kDefaultStartBins = 1024;

// Scans every event and (re)writes the start_histogram table and its meta
// facts, in one transaction.
void write_start_histogram(Database& db, std::int32_t bins = kDefaultStartBins);
bool has_start_histogram(Database& db);
// Throws weft::Error naming the file when the table is malformed.
StartHistogram read_start_histogram(Database& db);

}  // namespace weft::db
