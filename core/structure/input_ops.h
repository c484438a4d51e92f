#pragma once
// The ops of the input trace, as the results are written back against them
// (one stored record per input op) once Isend coalescing (§3.3) has folded
// runs of them into single analyzed ops.
//
// Kept compact so that the input trace can be released before the passes run:
// otherwise its columns sit beside the analyzed trace's copies of them at the
// analysis' peak memory.
//  - Which analyzed op each input op became: one bit per input op that starts
//    a new analyzed op (rank_bits.h; the map is non-decreasing because a
//    coalesced run is consecutive ops).
//  - An input op that became an analyzed op alone takes its process, kind and
//    times from it; only the members of coalesced runs keep their own times,
//    as 4-byte offsets from their run's start (the analyzed op's) and 4-byte
//    durations: Isends last microseconds, and 16 bytes per member were 21 MB
//    at 16,384 processes x 20 iterations. A member whose offset or duration
//    does not fit is kept aside with its times whole.
//  - The event ids, as each op's difference from the op before (a few events
//    apart: 1 byte per op, 2 where gaps of hundreds are common;
//    common/narrow_column.h) and each process's id before its first op, for
//    walks that start there. The input's 32-bit column is dropped.
//  - The input op that sent each message: which Isend of a run sent it. The
//    receiving op is never part of a run, so the analyzed trace has it (the
//    analyzed op's one input op).
#include <cstdint>
#include <vector>

#include "common/default_init_allocator.h"
#include "common/narrow_column.h"
#include "structure/comm_trace.h"
#include "structure/rank_bits.h"

namespace weft::structure {

struct InputOp {
  OpIndex index = kNoOp;     // in the input trace
  OpIndex analyzed = kNoOp;  // the op of the analyzed trace it became
  ProcessIndex process = 0;
  OpKind kind = OpKind::Send;
  TimeNs start = 0, end = 0;
  EventId event_id = -1;  // -1 when the input trace had no event ids
  // The next input op is the same event: a call split into two ops (a send
  // and a receive, as MPI_Sendrecv).
  bool shares_event_with_next = false;
};

class InputOps {
 public:
  InputOps() = default;
  // `starts`: the ops of `input` that start an analyzed op, members counted
  // (input op i became analyzed op starts.rank(i + 1) - 1; the analyzed op of
  // a run of several input ops has their process and kind, as coalesce_isends
  // makes it). Takes the event ids of `input` (its event_id is left empty:
  // they are kept as differences); reads the rest. `threads`: 2 builds its
  // two parts side by side.
  InputOps(CommTrace& input, RankBits starts, int threads = 1);
  // Which input ops start an analyzed op (for coalesce_isends).
  const RankBits& starts() const { return starts_; }

  std::int32_t count() const { return static_cast<std::int32_t>(starts_.size()); }
  // Bytes per input op of its event id (1, 2 or 4; 0 without event ids).
  std::size_t event_id_width() const { return event_step_.width(); }
  OpIndex analyzed_op(OpIndex input_op) const { return starts_.rank(static_cast<std::size_t>(input_op) + 1) - 1; }
  // The largest end - start of an input op (0 without ops): the step level
  // of detail's duration range. Found while the ops are kept, rather than
  // by a walk of its own (4.7% of the view tables' thread's samples in the
  // write at 4,096 processes x 20).
  TimeNs max_duration() const { return max_duration_; }
  std::int32_t message_count() const { return static_cast<std::int32_t>(msg_send_op_.size()); }
  // The input op that sent message m (kNoOp when absent).
  OpIndex message_send_op(std::int32_t m) const { return msg_send_op_[static_cast<std::size_t>(m)]; }

  // Where a walk over the input ops stands: its next op, that op's index
  // among the members of coalesced runs, and the event id of the op before
  // it (0 before the first), from which the next op's is counted.
  struct Position {
    OpIndex op = 0;
    std::int32_t member = 0;
    StoredEventId event_before = 0;
  };
  // The first input op of process p, and the op after its last.
  Position process_start(ProcessIndex p) const {
    const auto up = static_cast<std::size_t>(p);
    return {process_first_op_[up], process_first_member_[up],
            process_event_before_.empty() ? StoredEventId{0} : process_event_before_[up]};
  }
  OpIndex process_end(ProcessIndex p) const { return process_first_op_[static_cast<std::size_t>(p) + 1]; }

  // Calls f(const InputOp&) for every input op in order; `analyzed` is the
  // trace given to the constructor (the analysis result's).
  template <class F>
  void for_each(const CommTrace& analyzed, F&& f) const {
    for_each_while(analyzed, Position{}, count(), [&](const InputOp& op) {
      f(op);
      return true;
    });
  }
  // Calls f(const InputOp&) for the input ops from `from` up to `end` until
  // it returns false; returns the position of the op it refused (or `end`),
  // from which a later call resumes the walk.
  template <class F>
  Position for_each_while(const CommTrace& analyzed, Position from, OpIndex end, F&& f) const {
    InputOp op;
    auto member = static_cast<std::size_t>(from.member);  // next entry of member_offset_/member_duration_
    std::int64_t event_before = from.event_before;
    const std::int32_t n = count();
    op.analyzed = starts_.rank(static_cast<std::size_t>(from.op)) - 1;  // the op before `from`'s
    // Each op's start bit and event id difference, read once: as the next
    // op's (for `grouped` and shares_event_with_next), then as its own.
    bool starts = from.op < n && starts_new(from.op);
    std::int32_t step = has_event_ids_ && from.op < n ? event_step_[static_cast<std::size_t>(from.op)] : 0;
    for (OpIndex i = from.op; i < end; ++i) {
      const bool next_starts = i + 1 < n && starts_new(i + 1);
      const bool grouped = !starts || (i + 1 < n && !next_starts);
      op.index = i;
      if (starts) ++op.analyzed;  // from kNoOp (-1): op 0 always starts one
      auto a = static_cast<std::size_t>(op.analyzed);
      op.process = analyzed.process[a];
      op.kind = analyzed.kind[a];
      if (grouped) {
        const std::uint32_t offset = member_offset_[member], duration = member_duration_[member];
        if (offset != kMemberAside) {
          op.start = analyzed.start[a] + offset;
          op.end = op.start + duration;
        } else {
          const MemberTimes& kept = member_aside(member);
          op.start = kept.start;
          op.end = kept.end;
        }
      } else {
        op.start = analyzed.start[a];
        op.end = analyzed.end[a];
      }
      if (!has_event_ids_) {
        op.event_id = -1;
        op.shares_event_with_next = false;
      } else {
        // An event id is one event's, so two ops with one id are one
        // process's consecutive ops: the next one a difference of 0.
        const std::int32_t next_step = i + 1 < n ? event_step_[static_cast<std::size_t>(i) + 1] : -1;
        op.event_id = event_before + step;
        op.shares_event_with_next = next_step == 0;
        step = next_step;
      }
      if (!f(static_cast<const InputOp&>(op)))
        return {i, static_cast<std::int32_t>(member), static_cast<StoredEventId>(event_before)};
      if (grouped) ++member;
      if (has_event_ids_) event_before = op.event_id;
      starts = next_starts;
    }
    return {end, static_cast<std::int32_t>(member), static_cast<StoredEventId>(event_before)};
  }

 private:
  // A member's times that do not fit 4-byte offset and duration.
  struct MemberTimes {
    std::size_t member;
    TimeNs start, end;
  };
  // The offset of a member kept aside (member_aside_).
  static constexpr std::uint32_t kMemberAside = UINT32_MAX;

  // member_offset_, member_duration_, member_aside_, max_duration_,
  // msg_send_op_, process_first_op_, process_first_member_
  void keep_run_members_and_senders(const CommTrace& input, int threads);
  // has_event_ids_, event_step_, process_event_before_
  void keep_event_ids(const CommTrace& input, const std::vector<StoredEventId>& event_id, int threads);
  bool starts_new(OpIndex i) const { return starts_.test(static_cast<std::size_t>(i)); }
  const MemberTimes& member_aside(std::size_t member) const;

  RankBits starts_;  // input ops that start a new analyzed op
  // The ops of coalesced runs, in input order: start minus the run's start,
  // and end minus start; kMemberAside offsets are in member_aside_.
  UninitializedVector<std::uint32_t> member_offset_, member_duration_;
  std::vector<MemberTimes> member_aside_;  // sorted by member
  TimeNs max_duration_ = 0;
  // Per input op, its event id minus the op before's (the first op's from 0);
  // empty, and has_event_ids_ false, when the input had no event ids.
  bool has_event_ids_ = false;
  NarrowColumn event_step_;
  std::vector<StoredEventId> process_event_before_;  // per process: the id of the op before its first
  UninitializedVector<OpIndex> msg_send_op_;
  // Per process (and one past the last): its first input op and that op's
  // member index, where a walk over one process starts.
  std::vector<OpIndex> process_first_op_;
  std::vector<std::int32_t> process_first_member_;
};

}  // namespace weft::structure
