#include "summary/start_histogram.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "common/int_math.h"
#include "store/batch_insert.h"
#include "store/meta.h"
#include "store/record_scan.h"

namespace weft::db {

namespace {

constexpr const char* kClassNames[kStartClasses] = {"send",       "receive", "wait",
                                                    "collective", "other MPI", "compute"};

}  // namespace

const char* start_class_name(StartClass c) { return kClassNames[static_cast<int>(c)]; }

StartClass start_class_of(RegionKind kind) {
  switch (kind) {
    case RegionKind::Send:
    case RegionKind::Isend: return StartClass::Send;
    case RegionKind::Recv:
    case RegionKind::Irecv: return StartClass::Receive;
    case RegionKind::Wait: return StartClass::Wait;
    case RegionKind::Collective: return StartClass::Collective;
    case RegionKind::MpiOther: return StartClass::OtherMpi;
    case RegionKind::Compute:
    case RegionKind::OtherParadigm: return StartClass::Compute;
  }
  return StartClass::Compute;
}

void RegionClasses::set(std::int64_t region, StartClass c) {
  if (region < 0 || region >= kDenseRegions) {
    sparse_[region] = c;
    return;
  }
  const auto i = static_cast<std::size_t>(region);
  if (i >= dense_.size()) dense_.resize(i + 1, static_cast<std::uint8_t>(StartClass::Compute));
  dense_[i] = static_cast<std::uint8_t>(c);
}

StartClass RegionClasses::of_sparse(std::int64_t region) const {
  auto it = sparse_.find(region);
  return it == sparse_.end() ? StartClass::Compute : it->second;
}

RegionClasses read_region_classes(Database& db) {
  RegionClasses out;
  Statement s(db, "SELECT region, kind FROM regions");
  while (s.step()) {
    std::int64_t kind = s.column_int(1);
    bool known = kind >= 0 && kind <= static_cast<std::int64_t>(RegionKind::OtherParadigm);
    out.set(s.column_int(0), start_class_of(known ? static_cast<RegionKind>(kind) : RegionKind::Compute));
  }
  return out;
}

void write_start_histogram(Database& db, std::int32_t bins) {
  bins = std::max(bins, 1);
  const TimeNs end = std::max<TimeNs>(read_meta_int(db, "trace_end_ns"), 1);
  const TimeNs bin_ns = std::max<TimeNs>(1, ceil_div(end, bins));

  const RegionClasses class_of_region = read_region_classes(db);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(bins) * kStartClasses, 0);
  scan_events(db, [&](std::span<const EventRecord> batch) {
    for (const EventRecord& e : batch) {
      const auto bin = static_cast<std::size_t>(std::clamp<TimeNs>(e.start_ns / bin_ns, 0, bins - 1));
      ++counts[bin * kStartClasses + static_cast<std::size_t>(class_of_region.of(e.region))];
    }
  });

  Transaction tx(db, "BEGIN IMMEDIATE");
  db.exec("DROP TABLE IF EXISTS start_histogram");
  db.exec(
      "CREATE TABLE start_histogram(bin INTEGER NOT NULL, class INTEGER NOT NULL,"
      " starts INTEGER NOT NULL, PRIMARY KEY(bin, class)) WITHOUT ROWID");
  {
    BatchInserter rows(db, "start_histogram", "", 3);
    for (std::int32_t b = 0; b < bins; ++b)
      for (int c = 0; c < kStartClasses; ++c) {
        std::int64_t n = counts[static_cast<std::size_t>(b) * kStartClasses + static_cast<std::size_t>(c)];
        if (n == 0) continue;
        std::array<std::int64_t, 3> row{b, c, n};
        rows.add(row);
      }
    rows.flush();
  }
  write_meta_ints(db, {{"histogram_bins", bins}, {"histogram_bin_ns", bin_ns}});
  tx.commit();
}

bool has_start_histogram(Database& db) {
  return has_table(db, "start_histogram");
}

StartHistogram read_start_histogram(Database& db) {
  StartHistogram h;
  const std::int64_t bins = read_meta_int(db, "histogram_bins");
  h.bin_ns = read_meta_int(db, "histogram_bin_ns");
  if (bins < 1 || bins > (1 << 20) || h.bin_ns < 1)
    throw Error(db.path(), "meta histogram_bins/histogram_bin_ns out of range");
  h.bins = static_cast<std::int32_t>(bins);
  for (auto& c : h.counts) c.assign(static_cast<std::size_t>(bins), 0);
  Statement s(db, "SELECT bin, class, starts FROM start_histogram");
  while (s.step()) {
    std::int64_t b = s.column_int(0), c = s.column_int(1);
    if (b < 0 || b >= bins || c < 0 || c >= kStartClasses)
      throw Error(db.path(), "start_histogram row out of range");
    h.counts[static_cast<std::size_t>(c)][static_cast<std::size_t>(b)] = s.column_int(2);
  }
  for (std::int32_t b = 0; b < h.bins; ++b) {
    std::int64_t total = 0;
    for (const auto& c : h.counts) total += c[static_cast<std::size_t>(b)];
    h.max_stacked = std::max(h.max_stacked, total);
  }
  return h;
}

}  // namespace weft::db
