#include "structure/time_metrics.h"

#include <algorithm>

#include "common/error.h"
#include "common/int_math.h"
#include "store/batch_insert.h"
#include "store/meta.h"

namespace weft::db {

namespace {

// The largest bin count a reader accepts: the table is meant to be small,
// and a damaged meta value must not size an allocation.
constexpr std::int64_t kMaxTimeMetricBins = 1 << 20;

}  // namespace

TimeMetricBins bin_time_metrics(const structure::StructureResult& r, TimeNs trace_end_ns,
                                const std::function<void(structure::OpIndex, const structure::OpMetrics&)>& visit,
                                std::int32_t bins) {
  return bin_time_metrics([&](const auto& emit) {
    for (structure::OpIndex a = 0; a < r.trace.op_count(); ++a) {
      const structure::OpMetrics m = r.metrics.all_in_op_order(a);
      visit(a, m);
      emit(time_metric_item(r.trace, a, m));
    }
  }, trace_end_ns, bins);
}

TimeMetricBinner::TimeMetricBinner(TimeNs trace_end_ns, std::int32_t bins) {
  bins = std::max(bins, 1);
  const TimeNs end = std::max<TimeNs>(trace_end_ns, 1);
  TimeMetrics& m = out_.metrics;
  m.bins = bins;
  m.bin_ns = std::max<TimeNs>(1, ceil_div(end, bins));
  for (auto& v : m.values) v.assign(static_cast<std::size_t>(bins), 0);
  out_.ops.assign(static_cast<std::size_t>(bins), 0);
}

TimeMetricBins bin_time_metrics(const TimeMetricItems& items, TimeNs trace_end_ns, std::int32_t bins) {
  TimeMetricBinner binner(trace_end_ns, bins);
  items([&](const TimeMetricItem& it) { binner.add(it); });
  return binner.take();
}

void write_time_metrics(Database& db, const TimeMetricBins& bins) {
  const TimeMetrics& m = bins.metrics;
  db.exec("DROP TABLE IF EXISTS time_metrics");
  db.exec(
      "CREATE TABLE time_metrics(bin INTEGER PRIMARY KEY, ops INTEGER NOT NULL,"
      " max_lateness_ns INTEGER NOT NULL, max_global_lateness_ns INTEGER NOT NULL,"
      " max_diff_lateness_ns INTEGER NOT NULL, sum_wait_ns INTEGER NOT NULL)");
  BatchInserter rows(db, "time_metrics", "", 6);
  for (std::int32_t b = 0; b < m.bins; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    if (bins.ops[ub] == 0) continue;  // bins with no event end have no row
    std::array<std::int64_t, 6> row{b, bins.ops[ub], m.values[kTimeLateness][ub], m.values[kTimeGlobalLateness][ub],
                                    m.values[kTimeDiffLateness][ub], m.values[kTimeWait][ub]};
    rows.add(row);
  }
  rows.flush();
  write_meta_ints(db, {{"time_metrics_bins", m.bins}, {"time_metrics_bin_ns", m.bin_ns}});
}

void write_time_metric_items(Database& db, const TimeMetricItems& items, std::int32_t bins) {
  write_time_metrics(db, bin_time_metrics(items, read_meta_int(db, "trace_end_ns"), bins));
}

bool has_time_metrics(Database& db) { return has_table(db, "time_metrics"); }

TimeMetrics read_time_metrics(Database& db) {
  TimeMetrics m;
  const std::int64_t bins = read_meta_int(db, "time_metrics_bins", "run `weft analyze`");
  const std::int64_t bin_ns = read_meta_int(db, "time_metrics_bin_ns", "run `weft analyze`");
  if (bins < 1 || bins > kMaxTimeMetricBins || bin_ns < 1)
    throw Error(db.path() + ": time_metrics: bad bin layout in meta (" + std::to_string(bins) + " bins of " +
                std::to_string(bin_ns) + " ns)");
  m.bins = static_cast<std::int32_t>(bins);
  m.bin_ns = bin_ns;
  for (auto& v : m.values) v.assign(static_cast<std::size_t>(bins), 0);
  Statement s(db,
              "SELECT bin, max_lateness_ns, max_global_lateness_ns, max_diff_lateness_ns, sum_wait_ns"
              " FROM time_metrics");
  while (s.step()) {
    const std::int64_t b = s.column_int(0);
    if (b < 0 || b >= bins) throw Error(db.path() + ": time_metrics: bin " + std::to_string(b) + " out of range");
    for (int k = 0; k < kTimeMetrics; ++k)
      m.values[static_cast<std::size_t>(k)][static_cast<std::size_t>(b)] = s.column_int(k + 1);
  }
  return m;
}

}  // namespace weft::db
