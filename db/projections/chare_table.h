#pragma once
// The executing objects of a Projections run (docs/schema.md, "chares").
//
// A BEGIN_PROCESSING record names its entry method (hence the chare type)
// and, for array elements, the element's index. An array element is one
// chare per (chare type, index) wherever it runs (it may migrate); a group,
// nodegroup or singleton chare is one chare per (chare type, PE): the log
// does not tell singleton chares of one type on one PE apart.
// The log does not record which array an element belongs to, so array_id
// is -1 (unknown) for every chare.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace weft::db {

// Whether a chare type belongs to the Charm++ runtime rather than to the
// application (the logical structure keeps runtime chares apart). The rule,
// by name, covers what Charm++ registers itself: the dummy_* and SDAG/null
// placeholders, the base types (Chare, Group, NodeGroup, ArrayElement, ...),
// every Ck* system chare (CkReductionMgr, CkLocMgr, CkArray, ...), array
// maps (*Map, CkMapsInit), load balancers (*LB, LB*, MetaBalancer*),
// callbacks (ckcallback_*), futures, Tempo*, waitqd_*, PowerLogger and the
// tracing modules (Trace*, TraceProjections*, KMeansBOC). AMPI's rank
// chares (ampi, ampiParent, ampiWorlds) run the user's MPI code: application.
bool is_runtime_chare_type(std::string_view name);

struct ChareRow {
  std::int32_t chare_type;
  std::int32_t index_count;  // 0 for non-array chares
  std::int32_t index[4];
  std::int32_t home_pe;      // the PE of its first execution
};

class ChareTable {
 public:
  // The chare of an execution of `chare_type` on `pe` with the record's
  // index (`index_count` > 0 only for array elements).
  std::int64_t chare_of(std::int32_t chare_type, bool is_array, const int* index, int index_count, std::int32_t pe);
  const std::vector<ChareRow>& rows() const { return rows_; }

 private:
  struct Key {
    std::int32_t type;
    std::array<std::int32_t, 4> idx;  // index, or (pe, -1, -1, -1) for non-array chares
    bool operator==(const Key&) const = default;
  };
  static std::uint64_t hash(const Key& k) {
    std::uint64_t h = static_cast<std::uint32_t>(k.type) * 0x9E3779B97F4A7C15ull;
    for (std::int32_t v : k.idx) h = (h ^ static_cast<std::uint32_t>(v)) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
  }
  void grow();
  // Open addressing with linear probing over (key, id) slots, id -1 = empty:
  // one lookup per execution, so no node-based map and its cache misses.
  struct Slot {
    Key key;
    std::int64_t id;
  };
  std::vector<Slot> slots_;
  std::vector<ChareRow> rows_;
};

}  // namespace weft::db
