#include "projections/virtual_rank_query.h"

#include <array>
#include <initializer_list>

#include "store/meta.h"

namespace weft::db {

namespace {

// The four integer columns of each row of `sql`, with ?1, ?2, ... bound to `args`.
std::vector<std::array<std::int64_t, 4>> read_rows(Database& db, std::string_view sql,
                                                   std::initializer_list<std::int64_t> args) {
  Statement s(db, sql);
  int i = 0;
  for (std::int64_t a : args) s.bind(++i, a);
  std::vector<std::array<std::int64_t, 4>> rows;
  while (s.step()) rows.push_back({s.column_int(0), s.column_int(1), s.column_int(2), s.column_int(3)});
  return rows;
}

}  // namespace

std::int64_t count_virtual_ranks(Database& db) {
  return find_meta_int(db, "count_virtual_ranks").value_or(0);
}

std::vector<VirtualRankSpan> read_rank_spans(Database& db, std::int64_t vp0, std::int64_t vp1, TimeNs t0_ns,
                                             TimeNs t1_ns) {
  std::vector<VirtualRankSpan> out;
  for (const auto& r : read_rows(db,
                                 "SELECT vp, pe, start_ns, end_ns FROM virtual_ranks WHERE vp >= ?1 AND vp < ?2"
                                 " AND start_ns <= ?4 AND end_ns >= ?3 ORDER BY vp, start_ns",
                                 {vp0, vp1, t0_ns, t1_ns}))
    out.push_back({static_cast<std::int32_t>(r[0]), static_cast<std::int32_t>(r[1]), r[2], r[3]});
  return out;
}

std::vector<Migration> read_migrations(Database& db, TimeNs t0_ns, TimeNs t1_ns) {
  std::vector<Migration> out;
  for (const auto& r : read_rows(db,
                                 "SELECT vp, from_pe, to_pe, time_ns FROM migrations WHERE time_ns >= ?1"
                                 " AND time_ns <= ?2 ORDER BY vp, time_ns",
                                 {t0_ns, t1_ns}))
    out.push_back({static_cast<std::int32_t>(r[0]), static_cast<std::int32_t>(r[1]), static_cast<std::int32_t>(r[2]),
                   r[3]});
  return out;
}

}  // namespace weft::db
