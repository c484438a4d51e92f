#pragma once
// Bits per stored event id for loading a CommTrace without sorting or
// searching: which events other records refer to (and in which role), which
// events are operations, which are split into two ops (MPI_Sendrecv), and the
// rank of each event among the ops, so that an event id maps to its op index
// in O(1) (ops are numbered in event id order).
//
// Event ids are dense (0 .. count_events - 1, docs/schema.md), so the bits
// cost under one byte per event, operation or not.
#include <bit>
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "structure/comm_trace.h"

namespace weft::db {

class EventOpIndex {
 public:
  // The roles in which messages and collectives refer to an event.
  enum Role : std::uint8_t { kSent = 0, kCompleted = 1, kPosted = 2, kCollective = 3, kRoles = 4 };

  explicit EventOpIndex(std::int64_t events)
      : events_(events), words_(static_cast<std::size_t>((events + 63) / 64)) {}

  bool contains(EventId e) const { return e >= 0 && e < events_; }

  // Ids outside 0..events-1 are ignored: such a reference matches no event.
  void add_role(EventId e, Role role) {
    if (contains(e)) words_[word(e)].role[role] |= bit(e);
  }
  bool has_role(EventId e, Role role) const { return words_[word(e)].role[role] & bit(e); }
  bool referenced(EventId e) const {
    const Word& w = words_[word(e)];
    return (w.role[0] | w.role[1] | w.role[2] | w.role[3]) & bit(e);
  }

  // Returns false when `e` was already seen (a duplicate id).
  bool mark_seen(EventId e) {
    std::uint64_t& s = words_[word(e)].seen;
    if (s & bit(e)) return false;
    s |= bit(e);
    return true;
  }
  // `e` becomes one operation, or two when `split`.
  void mark_op(EventId e, bool split) {
    words_[word(e)].op |= bit(e);
    if (split) words_[word(e)].split |= bit(e);
  }

  // Call after the last mark_op, before op_of: numbers the ops. Returns their count.
  std::int64_t number_ops() {
    std::int64_t ops = 0;
    for (Word& w : words_) {
      w.ops_before = ops;
      ops += std::popcount(w.op) + std::popcount(w.split);
    }
    return ops;
  }

  // The op of event `e` (the send half of a split one), or kNoOp.
  structure::OpIndex op_of(EventId e) const {
    if (!contains(e)) return structure::kNoOp;
    const Word& w = words_[word(e)];
    if (!(w.op & bit(e))) return structure::kNoOp;
    const std::uint64_t below = bit(e) - 1;
    return static_cast<structure::OpIndex>(w.ops_before + std::popcount(w.op & below) +
                                           std::popcount(w.split & below));
  }
  bool is_split(EventId e) const { return words_[word(e)].split & bit(e); }

 private:
  struct Word {
    std::uint64_t role[kRoles] = {};
    std::uint64_t seen = 0, op = 0, split = 0;
    std::int64_t ops_before = 0;
  };
  static std::size_t word(EventId e) { return static_cast<std::size_t>(e) >> 6; }
  static std::uint64_t bit(EventId e) { return std::uint64_t{1} << (e & 63); }

  std::int64_t events_;
  std::vector<Word> words_;
};

}  // namespace weft::db
