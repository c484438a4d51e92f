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

// The roles in which messages and collectives refer to events: 4 bits per
// event. Marked by one thread at a time; a second thread marking at once
// (the loader reads the messages from both ends of their table) marks a
// set of its own, which EventOpIndex::add_roles then joins.
class EventRoles {
 public:
  enum Role : std::uint8_t { kSent = 0, kCompleted = 1, kPosted = 2, kCollective = 3, kRoles = 4 };

  explicit EventRoles(std::int64_t events) : events_(events), words_(static_cast<std::size_t>((events + 63) / 64)) {}

  // Ids outside 0..events-1 are ignored: such a reference matches no event.
  void add(EventId e, Role role) {
    if (e >= 0 && e < events_) words_[word(e)].role[role] |= bit(e);
  }
  // Forgets every role (to mark them again after a failed pass).
  void clear() {
    for (Word& w : words_) w = Word{};
  }
  // Adds the roles of `other` (of as many events).
  void add(const EventRoles& other) {
    for (std::size_t i = 0; i < words_.size() && i < other.words_.size(); ++i)
      for (int r = 0; r < kRoles; ++r) words_[i].role[r] |= other.words_[i].role[r];
  }
  bool has(EventId e, Role role) const { return words_[word(e)].role[role] & bit(e); }
  bool any(EventId e) const { return any_of_word(word(e)) & bit(e); }
  // Per 64 events from event 64 * i: which have a role, and which are sent.
  std::uint64_t any_of_word(std::size_t i) const {
    const Word& w = words_[i];
    return w.role[0] | w.role[1] | w.role[2] | w.role[3];
  }
  std::uint64_t sent_of_word(std::size_t i) const { return words_[i].role[kSent]; }

 private:
  struct Word {
    std::uint64_t role[kRoles] = {};
  };
  static std::size_t word(EventId e) { return static_cast<std::size_t>(e) >> 6; }
  static std::uint64_t bit(EventId e) { return std::uint64_t{1} << (e & 63); }

  std::int64_t events_;
  std::vector<Word> words_;
};

class EventOpIndex {
 public:
  using Role = EventRoles::Role;
  static constexpr Role kSent = EventRoles::kSent, kCompleted = EventRoles::kCompleted,
                        kPosted = EventRoles::kPosted, kCollective = EventRoles::kCollective;

  explicit EventOpIndex(std::int64_t events)
      : events_(events), words_(static_cast<std::size_t>((events + 63) / 64)), roles_(events) {}

  bool contains(EventId e) const { return e >= 0 && e < events_; }
  std::int64_t events() const { return events_; }

  // Marking has two sides that may run on two threads at once, since they
  // write separate arrays: the references' roles (roles()), and the events'
  // own calls (mark_seen, mark_call). finish_marking() then combines them.

  // The references' roles, marked by one thread while another marks the
  // calls; ids outside 0..events-1 are ignored.
  EventRoles& roles() { return roles_; }
  // Joins the roles another thread marked meanwhile (before finish_marking).
  void add_roles(const EventRoles& marked_elsewhere) { roles_.add(marked_elsewhere); }
  // Forgets every role (to mark them again after a failed pass).
  void clear_roles() { roles_.clear(); }
  bool has_role(EventId e, Role role) const { return roles_.has(e, role); }
  bool referenced(EventId e) const { return roles_.any(e); }

  // Returns false when `e` was already seen (a duplicate id).
  bool mark_seen(EventId e) {
    std::uint64_t& s = words_[word(e)].seen;
    if (s & bit(e)) return false;
    s |= bit(e);
    return true;
  }
  // `e` is a communication call (its region makes it an op); `receive`: a
  // receive call, two ops if it also sends (MPI_Sendrecv).
  void mark_call(EventId e, bool receive) {
    words_[word(e)].op |= bit(e);
    if (receive) words_[word(e)].receive |= bit(e);
  }

  // After both sides of the marking, before op_of: every seen event that a
  // message or collective refers to is an op too, a receive call that sends
  // is split, and the ops are numbered. Returns their count.
  std::int64_t finish_marking() {
    std::int64_t ops = 0;
    for (std::size_t i = 0; i < words_.size(); ++i) {
      Word& w = words_[i];
      w.op |= w.seen & roles_.any_of_word(i);
      w.split = w.receive & roles_.sent_of_word(i);
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
    std::uint64_t seen = 0, op = 0, receive = 0, split = 0;
    std::int64_t ops_before = 0;
  };
  static std::size_t word(EventId e) { return static_cast<std::size_t>(e) >> 6; }
  static std::uint64_t bit(EventId e) { return std::uint64_t{1} << (e & 63); }

  std::int64_t events_;
  std::vector<Word> words_;
  EventRoles roles_;  // apart from words_: written by the other thread
};

}  // namespace weft::db
