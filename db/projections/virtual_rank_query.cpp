#include "projections/virtual_rank_query.h"

#include "store/meta.h"

namespace weft::db {

std::int64_t count_virtual_ranks(Database& db) {
  return find_meta_int(db, "count_virtual_ranks").value_or(0);
}

std::vector<VirtualRankSpan> read_rank_spans(Database& db, std::int64_t vp0, std::int64_t vp1, TimeNs t0_ns,
                                             TimeNs t1_ns) {
  std::vector<VirtualRankSpan> out;
  Statement s(db,
              "SELECT vp, pe, start_ns, end_ns FROM virtual_ranks WHERE vp >= ?1 AND vp < ?2"
              " AND start_ns <= ?4 AND end_ns >= ?3 ORDER BY vp, start_ns");
  s.bind(1, vp0);
  s.bind(2, vp1);
  s.bind(3, t0_ns);
  s.bind(4, t1_ns);
  while (s.step())
    out.push_back({static_cast<std::int32_t>(s.column_int(0)), static_cast<std::int32_t>(s.column_int(1)),
                   s.column_int(2), s.column_int(3)});
  return out;
}

std::vector<Migration> read_migrations(Database& db, TimeNs t0_ns, TimeNs t1_ns) {
  std::vector<Migration> out;
  Statement s(db,
              "SELECT vp, from_pe, to_pe, time_ns FROM migrations WHERE time_ns >= ?1 AND time_ns <= ?2"
              " ORDER BY vp, time_ns");
  s.bind(1, t0_ns);
  s.bind(2, t1_ns);
  while (s.step())
    out.push_back({static_cast<std::int32_t>(s.column_int(0)), static_cast<std::int32_t>(s.column_int(1)),
                   static_cast<std::int32_t>(s.column_int(2)), s.column_int(3)});
  return out;
}

}  // namespace weft::db
