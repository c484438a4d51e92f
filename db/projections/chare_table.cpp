#include "projections/chare_table.h"

#include <algorithm>
#include <array>

namespace weft::db {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

}  // namespace

bool is_runtime_chare_type(std::string_view name) {
  static constexpr std::array<std::string_view, 17> kExact = {
      "SDAG",      "null",        "Chare",      "Group",      "NodeGroup",       "ArrayElement",
      "ArrayBase", "FutureBOC",   "FutureMain", "PowerLogger", "KMeansBOC",      "LBDatabase",
      "LBManager", "LBDBInit",    "BaseLB",     "CentralLB",  "waitqd_QDChare"};
  static constexpr std::array<std::string_view, 9> kPrefix = {
      "dummy_", "Ck", "ckcallback_", "Tempo", "Trace", "MetaBalancer", "MetaLB", "LB", "waitqd_"};
  for (std::string_view e : kExact)
    if (name == e) return true;
  for (std::string_view p : kPrefix)
    if (starts_with(name, p)) return true;
  // Array maps (RRMap, BlockMap, CldMap, DefaultArrayMap, ...) and load
  // balancers (NullLB, GreedyLB, RefineLB, ...).
  if (ends_with(name, "Map") || ends_with(name, "LB")) return true;
  return false;
}

std::int64_t ChareTable::chare_of(std::int32_t chare_type, bool is_array, const int* index, int index_count,
                                  std::int32_t pe) {
  Key key{chare_type, {-1, -1, -1, -1}};
  ChareRow row{chare_type, 0, {0, 0, 0, 0}, pe};
  if (is_array) {
    row.index_count = index_count;
    for (int i = 0; i < index_count && i < 4; ++i) {
      key.idx[static_cast<std::size_t>(i)] = index[i];
      row.index[i] = index[i];
    }
  } else {
    key.idx[0] = pe;
  }
  if ((rows_.size() + 1) * 2 > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.id < 0) {
      s = {key, static_cast<std::int64_t>(rows_.size())};
      rows_.push_back(row);
      return s.id;
    }
    if (s.key == key) return s.id;
  }
}

void ChareTable::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(std::max<std::size_t>(64, old.size() * 2), Slot{{0, {0, 0, 0, 0}}, -1});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id < 0) continue;
    std::size_t i = hash(s.key) & mask;
    while (slots_[i].id >= 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

}  // namespace weft::db
