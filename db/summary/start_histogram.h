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

// Region reference -> class, from the regions table; a region it does not
// know is Compute. Looked up once per event by the level-of-detail builders,
// so the references, dense in every importer's output, index a byte array; a
// map holds those beyond kDenseRegions (a hand-made or damaged file's).
class RegionClasses {
 public:
  static constexpr std::int64_t kDenseRegions = std::int64_t{1} << 20;
  void set(std::int64_t region, StartClass c);
  StartClass of(std::int64_t region) const {
    if (region >= 0 && region < static_cast<std::int64_t>(dense_.size())) [[likely]]
      return static_cast<StartClass>(dense_[static_cast<std::size_t>(region)]);
    return of_sparse(region);
  }

 private:
  StartClass of_sparse(std::int64_t region) const;
  std::vector<std::uint8_t> dense_;  // StartClass values; Compute where unset
  std::unordered_map<std::int64_t, StartClass> sparse_;
};
RegionClasses read_region_classes(Database& db);

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
