// allreduce-collective: per iteration every rank: compute ·
// MPI_Allreduce(MPI_COMM_WORLD) · MPI_Barrier on its half of an even/odd
// MPI_Comm_split ("MPI_COMM_SPLIT even" = world ranks 0,2,4,…, "odd" = 1,3,5,…).
//   messages             = 0
//   collectives          = i·(1 + h) instances, h = number of non-empty halves
//                          (2, or 1 when n = 1); i·2n members in all
//                          (world n, even ⌈n/2⌉, odd ⌊n/2⌋)
//   region instances(r)  = 1 + 3i
//   OTF2 event records   = 2n + 10ni  (compute 2, Allreduce 4, Barrier 4)
#include "synth/patterns/patterns.h"

namespace weft::synth {
namespace {

constexpr TimeNs kComputeNs = 30'000;
constexpr std::uint64_t kAllreduceBytes = 64;

}  // namespace

void simulate_allreduce_collective_iteration(SimContext& ctx, std::int32_t iteration) {
  for (std::int32_t r = 0; r < ctx.procs(); ++r)
    ctx.compute(r, iteration, 0, Region::Compute, kComputeNs);
  ctx.collective_on_world(CollectiveOp::Allreduce, Region::MpiAllreduce, kAllreduceBytes);
  for (std::size_t half = 0; half < ctx.comms().subs.size(); ++half)
    ctx.collective_on(half, CollectiveOp::Barrier, Region::MpiBarrier, 0);
}

}  // namespace weft::synth
