#pragma once
// A synthetic Jacobi-2D-like Charm++ trace (the running example of
// charm-logical-structure.txt), for tests with known structure and for the
// benchmark. Each iteration:
//  1. every application chare runs `startIteration` (triggered by the last
//     reduction's broadcast; untriggered in iteration 0) and sends a ghost to
//     each grid neighbor (4-neighborhood, non-periodic), in neighbor-id order;
//  2. each ghost runs `recvGhost` on its receiver; the receiver's last ghost
//     also computes and contributes to its PE's CkReductionMgr (a runtime
//     chare) just before the block ends;
//  3. each CkReductionMgr runs `contributeLocal` per local contribution; on
//     PEs other than 0 the last one forwards the partial to PE 0's manager,
//     which runs `recvPartial` per PE; PE 0's last reduction block broadcasts
//     the result (one source, one sink per chare);
// after the last iteration the broadcast triggers `done` on every chare.
// Chares c = x + nx * y are block-distributed (PE = c * pes / chares);
// chare `chares + p` is the CkReductionMgr of PE p. Each PE runs its blocks
// one after the other, a block starting when its PE is free and its message
// has arrived (1 ns latency); waiting is recorded as idle.
#include <cstdint>

#include "charm/task_trace.h"

namespace weft::charm {

struct JacobiShape {
  std::int32_t nx = 2, ny = 2, pes = 2, iterations = 2;
  ChareIndex delay_chare = kNone;  // this chare's compute in delay_iteration takes delay_ns longer
  std::int32_t delay_iteration = 0;
  TimeNs delay_ns = 0;
};

// Durations (ns) of the generated blocks.
constexpr TimeNs kJacobiLatency = 1;
constexpr TimeNs kJacobiSendSpacing = 2;  // startIteration: a send every 2 ns, ends 2 ns after the last
constexpr TimeNs kJacobiRecv = 4;
constexpr TimeNs kJacobiCompute = 20;      // added to the last recvGhost of a chare
constexpr TimeNs kJacobiReduce = 3;

// Throws weft::Error when the chares cannot be spread evenly over the PEs.
TaskTrace jacobi_task_trace(const JacobiShape& shape);

}  // namespace weft::charm
