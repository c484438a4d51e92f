#include "charm/jacobi_task_trace.h"

#include <algorithm>
#include <tuple>

#include "charm/task_trace_builder.h"
#include "common/error.h"

namespace weft::charm {
namespace {

class PeClocks {
 public:
  PeClocks(TaskTraceBuilder& b, std::int32_t pes) : b_(b), clock_(static_cast<std::size_t>(pes), 0) {}
  // Runs a block on `pe` as soon as the PE is free and `ready`; the wait is idle.
  std::int32_t run(ChareIndex chare, PeIndex pe, EntryIndex entry, TimeNs ready, TimeNs duration) {
    TimeNs& clock = clock_[static_cast<std::size_t>(pe)];
    const TimeNs start = std::max(clock, ready);
    if (start > clock) b_.idle(pe, clock, start);
    clock = start + duration;
    return b_.block(chare, pe, entry, start, clock);
  }

 private:
  TaskTraceBuilder& b_;
  std::vector<TimeNs> clock_;
};

}  // namespace

TaskTrace jacobi_task_trace(const JacobiShape& s) {
  const std::int32_t chares = s.nx * s.ny;
  if (s.nx <= 0 || s.ny <= 0 || s.pes <= 0 || s.iterations <= 0 || chares % s.pes != 0)
    throw Error("jacobi task trace: " + std::to_string(chares) + " chares do not spread evenly over " +
                std::to_string(s.pes) + " PEs");
  const std::int32_t per_pe = chares / s.pes;
  TaskTraceBuilder b(s.pes);
  for (std::int32_t c = 0; c < chares; ++c) b.chare(false);
  for (std::int32_t p = 0; p < s.pes; ++p) b.chare(true);
  const EntryIndex start_entry = b.entry("startIteration"), ghost_entry = b.entry("recvGhost"),
                   local_entry = b.entry("CkReductionMgr::contributeLocal"),
                   partial_entry = b.entry("CkReductionMgr::recvPartial"), done_entry = b.entry("done");
  auto pe_of = [&](ChareIndex c) { return c / per_pe; };
  auto neighbors = [&](ChareIndex c, ChareIndex* out) {
    const std::int32_t x = c % s.nx, y = c / s.nx;
    std::int32_t n = 0;
    if (y > 0) out[n++] = c - s.nx;
    if (x > 0) out[n++] = c - 1;
    if (x + 1 < s.nx) out[n++] = c + 1;
    if (y + 1 < s.ny) out[n++] = c + s.nx;
    return n;
  };
  PeClocks pe(b, s.pes);
  std::int32_t broadcast = kNone;
  TimeNs broadcast_time = 0;
  // (arrival, receiver, source event) of the messages of one stage.
  std::vector<std::tuple<TimeNs, ChareIndex, std::int32_t>> inbox;
  std::vector<std::int32_t> received(static_cast<std::size_t>(chares));
  for (std::int32_t it = 0; it < s.iterations; ++it) {
    inbox.clear();
    for (ChareIndex c = 0; c < chares; ++c) {  // 1. startIteration, ghosts out
      ChareIndex nb[4];
      const std::int32_t deg = neighbors(c, nb);
      const std::int32_t blk = pe.run(c, pe_of(c), start_entry, broadcast == kNone ? 0 : broadcast_time + kJacobiLatency,
                                      kJacobiSendSpacing * (deg + 1));
      if (broadcast != kNone) b.sink(blk, broadcast);
      const TimeNs t0 = b.start_of(blk);
      for (std::int32_t m = 0; m < deg; ++m) {
        const TimeNs t = t0 + kJacobiSendSpacing * (m + 1);
        inbox.emplace_back(t + kJacobiLatency, nb[m], b.source(blk, t));
      }
    }
    std::sort(inbox.begin(), inbox.end());
    std::fill(received.begin(), received.end(), 0);
    std::vector<std::tuple<TimeNs, ChareIndex, std::int32_t>> contributions;
    for (const auto& [arrival, c, src] : inbox) {  // 2. ghosts in, compute, contribute
      ChareIndex nb[4];
      const bool last = ++received[static_cast<std::size_t>(c)] == neighbors(c, nb);
      TimeNs d = kJacobiRecv;
      if (last) d += kJacobiCompute + (c == s.delay_chare && it == s.delay_iteration ? s.delay_ns : 0);
      const std::int32_t blk = pe.run(c, pe_of(c), ghost_entry, arrival, d);
      b.sink(blk, src);
      if (last) {
        const TimeNs t = b.start_of(blk) + d - 1;
        contributions.emplace_back(t + kJacobiLatency, chares + pe_of(c), b.source(blk, t));
      }
    }
    std::sort(contributions.begin(), contributions.end());
    std::vector<std::int32_t> local_count(static_cast<std::size_t>(s.pes), 0);
    std::vector<std::tuple<TimeNs, ChareIndex, std::int32_t>> partials;
    std::int32_t last_root_block = kNone;
    for (const auto& [arrival, mgr, src] : contributions) {  // 3. local reductions
      const PeIndex p = mgr - chares;
      const std::int32_t blk = pe.run(mgr, p, local_entry, arrival, kJacobiReduce);
      b.sink(blk, src);
      if (++local_count[static_cast<std::size_t>(p)] < per_pe) continue;
      if (p == 0) {
        last_root_block = blk;
      } else {
        const TimeNs t = b.start_of(blk) + kJacobiReduce - 1;
        partials.emplace_back(t + kJacobiLatency, chares, b.source(blk, t));
      }
    }
    std::sort(partials.begin(), partials.end());
    for (const auto& [arrival, mgr, src] : partials) {
      last_root_block = pe.run(mgr, 0, partial_entry, arrival, kJacobiReduce);
      b.sink(last_root_block, src);
    }
    broadcast_time = b.start_of(last_root_block) + kJacobiReduce - 1;
    broadcast = b.source(last_root_block, broadcast_time);
  }
  for (ChareIndex c = 0; c < chares; ++c) b.sink(pe.run(c, pe_of(c), done_entry, broadcast_time + kJacobiLatency, 1), broadcast);
  return b.build();
}

}  // namespace weft::charm
