#include "summary/pe_usage.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "common/error.h"
#include "projections/projections_check.h"
#include "store/batch_insert.h"
#include "store/meta.h"
#include "store/record_scan.h"

namespace weft::db {

namespace {

// What a depth-0 event is to the utilization: an entry-method execution, an
// idle interval, or neither (a bracket outside any execution).
constexpr std::int32_t kIdleClass = -1;
constexpr std::int32_t kOtherClass = -2;

struct RegionClasses {
  std::unordered_map<std::int64_t, std::int32_t> of_region;  // entry index, kIdleClass or absent
  std::vector<std::int64_t> entry_region;                   // entry index -> region id
};

RegionClasses read_region_classes(Database& db) {
  RegionClasses c;
  Statement s(db, "SELECT region, paradigm, role FROM regions ORDER BY region");
  while (s.step()) {
    const std::string paradigm = s.column_text(1), role = s.column_text(2);
    if (role == "idle") {
      c.of_region[s.column_int(0)] = kIdleClass;
    } else if (paradigm == "charm" && role == "function") {
      c.of_region[s.column_int(0)] = static_cast<std::int32_t>(c.entry_region.size());
      c.entry_region.push_back(s.column_int(0));
    }
  }
  return c;
}

// One PE's non-zero entry-method times, kept sparse: PEs x entries dense
// would not fit for 64K PEs and hundreds of entry methods.
struct SparseTime {
  std::int32_t pe;
  std::int32_t entry;
  TimeNs time;
};

}  // namespace

void write_pe_usage(Database& db) {
  if (!is_projections_run(db)) return;
  const std::int64_t pes = read_meta_int(db, "count_processes");
  if (pes < 0 || pes > (1 << 20)) throw Error(db.path(), "meta count_processes out of range");
  const RegionClasses classes = read_region_classes(db);
  const std::size_t entries = classes.entry_region.size();

  std::vector<TimeNs> busy(static_cast<std::size_t>(pes), 0), idle(static_cast<std::size_t>(pes), 0);
  std::vector<TimeNs> entry_total(entries, 0), pe_entry(entries, 0);
  std::vector<std::int32_t> touched;
  std::vector<char> seen(entries, 0);
  std::vector<SparseTime> sparse;
  TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
  scan_events_by_process(db, [&](ProcessIndex p, std::span<const EventRecord> events) {
    if (p < 0 || p >= pes) throw Error(db.path(), "event on process " + std::to_string(p) + " beyond count_processes");
    std::int64_t last_region = std::numeric_limits<std::int64_t>::min();
    std::int32_t cls = kOtherClass;
    for (const EventRecord& e : events) {
      if (e.depth != 0) continue;  // nested AMPI/user brackets are inside an execution's time
      lo = std::min(lo, e.start_ns);
      hi = std::max(hi, e.end_ns);
      if (e.region != last_region) {
        auto it = classes.of_region.find(e.region);
        cls = it == classes.of_region.end() ? kOtherClass : it->second;
        last_region = e.region;
      }
      const TimeNs d = e.end_ns - e.start_ns;
      if (cls == kIdleClass) {
        idle[static_cast<std::size_t>(p)] += d;
      } else if (cls >= 0) {
        busy[static_cast<std::size_t>(p)] += d;
        // A flag, not a zero time: executions may last 0 ns.
        if (!seen[static_cast<std::size_t>(cls)]) seen[static_cast<std::size_t>(cls)] = 1, touched.push_back(cls);
        pe_entry[static_cast<std::size_t>(cls)] += d;
      }
    }
    for (std::int32_t c : touched) {
      const TimeNs t = pe_entry[static_cast<std::size_t>(c)];
      entry_total[static_cast<std::size_t>(c)] += t;
      if (t > 0) sparse.push_back({p, c, t});  // documented: no row for a zero time
      pe_entry[static_cast<std::size_t>(c)] = 0;
      seen[static_cast<std::size_t>(c)] = 0;
    }
    touched.clear();
  });
  const TimeNs span = lo > hi ? 0 : hi - lo;

  // The usage profile keeps the entries with the most time over the run by
  // name; ties go to the lower region id so that the choice is reproducible.
  std::vector<std::int32_t> order(entries);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return entry_total[static_cast<std::size_t>(a)] > entry_total[static_cast<std::size_t>(b)];
  });
  std::vector<std::int64_t> kept_region(entries, kOtherEntry);
  for (std::size_t i = 0; i < order.size() && i < kProfileTopEntries; ++i)
    if (entry_total[static_cast<std::size_t>(order[i])] > 0)
      kept_region[static_cast<std::size_t>(order[i])] = classes.entry_region[static_cast<std::size_t>(order[i])];

  Transaction tx(db, "BEGIN IMMEDIATE");
  db.exec("DROP TABLE IF EXISTS pe_utilization");
  db.exec("DROP TABLE IF EXISTS pe_entry_time");
  db.exec(
      "CREATE TABLE pe_utilization(pe INTEGER PRIMARY KEY, busy_ns INTEGER NOT NULL,"
      " idle_ns INTEGER NOT NULL, span_ns INTEGER NOT NULL)");
  db.exec(
      "CREATE TABLE pe_entry_time(pe INTEGER NOT NULL, entry_region INTEGER NOT NULL,"
      " time_ns INTEGER NOT NULL, PRIMARY KEY(pe, entry_region)) WITHOUT ROWID");
  {
    BatchInserter rows(db, "pe_utilization", "", 4);
    for (std::int64_t p = 0; p < pes; ++p) {
      std::array<std::int64_t, 4> row{p, busy[static_cast<std::size_t>(p)], idle[static_cast<std::size_t>(p)], span};
      rows.add(row);
    }
    rows.flush();
  }
  {
    // Entries of one PE arrive together (the scan is by process): fold
    // the "other" ones of a PE into one row before writing it.
    BatchInserter rows(db, "pe_entry_time", "", 3);
    std::size_t i = 0;
    while (i < sparse.size()) {
      const std::int32_t pe = sparse[i].pe;
      TimeNs other = 0;
      for (; i < sparse.size() && sparse[i].pe == pe; ++i) {
        const std::int64_t region = kept_region[static_cast<std::size_t>(sparse[i].entry)];
        if (region == kOtherEntry) {
          other += sparse[i].time;
        } else {
          std::array<std::int64_t, 3> row{pe, region, sparse[i].time};
          rows.add(row);
        }
      }
      if (other > 0) {
        std::array<std::int64_t, 3> row{pe, kOtherEntry, other};
        rows.add(row);
      }
    }
    rows.flush();
  }
  tx.commit();
}

bool has_pe_usage(Database& db) {
  return !is_projections_run(db) || (has_table(db, "pe_utilization") && has_table(db, "pe_entry_time"));
}

PeUtilizationTable read_pe_utilization(Database& db) {
  if (!has_table(db, "pe_utilization"))
    throw Error(db.path(), "no pe_utilization table (a Projections run; run `weft analyze --summaries-only`)");
  PeUtilizationTable t;
  Statement s(db, "SELECT pe, busy_ns, idle_ns, span_ns FROM pe_utilization ORDER BY pe");
  while (s.step()) {
    if (s.column_int(0) != static_cast<std::int64_t>(t.busy.size()))
      throw Error(db.path(), "pe_utilization: PEs not numbered 0, 1, ...");
    t.busy.push_back(s.column_int(1));
    t.idle.push_back(s.column_int(2));
    t.span_ns = s.column_int(3);
  }
  return t;
}

UsageProfile read_usage_profile(Database& db) {
  if (!has_table(db, "pe_entry_time"))
    throw Error(db.path(), "no pe_entry_time table (a Projections run; run `weft analyze --summaries-only`)");
  UsageProfile u;
  u.pes = static_cast<std::int32_t>(read_meta_int(db, "count_processes"));
  // Kept entries by total time, "other" last.
  {
    Statement s(db,
                "SELECT entry_region FROM pe_entry_time GROUP BY entry_region"
                " ORDER BY entry_region = -1, SUM(time_ns) DESC, entry_region");
    while (s.step()) u.entries.push_back(s.column_int(0));
  }
  std::unordered_map<std::int64_t, std::size_t> index;
  for (std::size_t i = 0; i < u.entries.size(); ++i) index[u.entries[i]] = i;
  u.time.assign(static_cast<std::size_t>(u.pes) * u.entries.size(), 0);
  Statement s(db, "SELECT pe, entry_region, time_ns FROM pe_entry_time");
  while (s.step()) {
    const std::int64_t pe = s.column_int(0);
    if (pe < 0 || pe >= u.pes) throw Error(db.path(), "pe_entry_time: PE out of range");
    u.time[static_cast<std::size_t>(pe) * u.entries.size() + index.at(s.column_int(1))] = s.column_int(2);
  }
  return u;
}

}  // namespace weft::db
