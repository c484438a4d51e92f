#pragma once
// The physical overview strip's data (ravel-logical-lateness.txt: the metric
// overview, here over time instead of steps): for each time bin of the run,
// the largest lateness, global lateness and differential lateness of the
// communication events that end in it, and the time spent waiting in them.
// Written with the analysis (docs/schema.md, "time_metrics"), so the strip
// of a whole run is read from a thousand rows, never from the events.
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "common/int_math.h"
#include "common/types.h"
#include "store/sqlite.h"
#include "structure/analysis.h"

namespace weft::db {

enum TimeMetric : int { kTimeLateness, kTimeGlobalLateness, kTimeDiffLateness, kTimeWait, kTimeMetrics };

struct TimeMetrics {
  TimeNs bin_ns = 1;  // bin b covers [b * bin_ns, (b + 1) * bin_ns)
  std::int32_t bins = 0;
  // values[metric][bin]: maxima for the lateness metrics, the sum for wait.
  std::array<std::vector<TimeNs>, kTimeMetrics> values;
};

constexpr std::int32_t kDefaultTimeMetricBins = 1024;

// The items of any analysis: each with its end time, lateness, global
// lateness, differential lateness and wait.
struct TimeMetricItem {
  TimeNs end = 0, lateness = 0, global_lateness = 0, diff_lateness = 0, wait = 0;
};
using TimeMetricItems = std::function<void(const std::function<void(const TimeMetricItem&)>&)>;
// The item of analyzed op `a` of an MPI analysis, with its metrics `m`.
inline TimeMetricItem time_metric_item(const structure::CommTrace& t, structure::OpIndex a,
                                       const structure::OpMetrics& m) {
  return {t.end[static_cast<std::size_t>(a)], m.lateness, m.global_lateness, m.diff_lateness, m.wait};
}

// The bins of a run, with how many items end in each; built without the
// database, so that the analysis can build them on a second thread.
struct TimeMetricBins {
  TimeMetrics metrics;
  std::vector<std::int64_t> ops;  // per bin
};
// Bins items by their end time over [0, trace_end_ns], one at a time (for a
// walk that makes other tables from the same items).
class TimeMetricBinner {
 public:
  explicit TimeMetricBinner(TimeNs trace_end_ns, std::int32_t bins = kDefaultTimeMetricBins);
  void add(const TimeMetricItem& it) {
    TimeMetrics& m = out_.metrics;
    const auto b = static_cast<std::size_t>(std::clamp<TimeNs>(it.end / m.bin_ns, 0, m.bins - 1));
    ++out_.ops[b];
    m.values[kTimeLateness][b] = std::max(m.values[kTimeLateness][b], it.lateness);
    m.values[kTimeGlobalLateness][b] = std::max(m.values[kTimeGlobalLateness][b], it.global_lateness);
    m.values[kTimeDiffLateness][b] = std::max(m.values[kTimeDiffLateness][b], it.diff_lateness);
    m.values[kTimeWait][b] = saturating_add(m.values[kTimeWait][b], it.wait);
  }
  TimeMetricBins take() { return std::move(out_); }

 private:
  TimeMetricBins out_;
};

// Bins the items by their end time over [0, trace_end_ns].
TimeMetricBins bin_time_metrics(const TimeMetricItems& items, TimeNs trace_end_ns,
                                std::int32_t bins = kDefaultTimeMetricBins);
// Every analyzed op of an MPI analysis; `visit` also sees each op's metrics
// (view_tables.cpp takes the largest wait there instead of in a walk of its own).
TimeMetricBins bin_time_metrics(const structure::StructureResult& r, TimeNs trace_end_ns,
                                const std::function<void(structure::OpIndex, const structure::OpMetrics&)>& visit,
                                std::int32_t bins = kDefaultTimeMetricBins);
// (Re)creates the time_metrics table and its meta facts inside the caller's
// transaction.
void write_time_metrics(Database& db, const TimeMetricBins& bins);
// Both, with the trace's end from meta.
void write_time_metric_items(Database& db, const TimeMetricItems& items, std::int32_t bins = kDefaultTimeMetricBins);
bool has_time_metrics(Database& db);
// Throws weft::Error naming the file when the table or its meta is malformed.
TimeMetrics read_time_metrics(Database& db);

}  // namespace weft::db
