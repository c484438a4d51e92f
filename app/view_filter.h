#pragma once
// What the user chose to see: which processes get rows (a range list such as
// `0-1023:2,4096`), which functions are hidden, and which match the search
// (the others are dimmed). One immutable snapshot is shared by the UI and the
// loader threads; changing the filter makes a new snapshot and reloads.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/timeline_data.h"

namespace weft::app {

// Processes named by `text`: comma-separated items `A`, `A-B` or `A-B:STRIDE`
// (inclusive, 0-based), sorted and without repeats. Empty text: all. Throws
// weft::Error saying what is wrong with the text, named `what` (the rows).
std::vector<ProcessIndex> parse_process_ranges(const std::string& text, std::size_t process_count,
                                               const std::string& what = "processes");

struct ViewFilter {
  std::string process_text;                  // as typed ("" for all)
  std::vector<ProcessIndex> process_of_row;  // the rows, in order
  std::vector<std::int32_t> row_of_process;  // -1: the process has no row
  bool all_processes = true;
  std::vector<char> region_hidden;            // by region position
  std::string search;                         // "" for none
  std::vector<render::Rgba8> region_colors;   // by region position, non-matches dimmed
  std::size_t rows() const { return process_of_row.size(); }
  // Whether the region with reference `region_id` is hidden.
  bool hidden_reference(const TraceInfo& info, std::int64_t region_id) const {
    std::int32_t r = info.regions.index_of(region_id);
    return r >= 0 && static_cast<std::size_t>(r) < region_hidden.size() &&
           region_hidden[static_cast<std::size_t>(r)];
  }
  // The row of process p, or -1.
  std::int32_t row(ProcessIndex p) const {
    return p >= 0 && static_cast<std::size_t>(p) < row_of_process.size()
               ? row_of_process[static_cast<std::size_t>(p)]
               : -1;
  }
};

// Builds a filter; throws weft::Error for a bad process list (of a task
// run's logical rows: a bad chare list).
std::shared_ptr<const ViewFilter> make_view_filter(const TraceInfo& info, const std::string& process_text,
                                                   std::vector<char> region_hidden,
                                                   const std::string& search);

// The process window of rows [p0, p1] of `window` (rows as process ranges).
db::Window process_window(const ViewFilter& filter, db::Window rows);

}  // namespace weft::app
