// amg-like: a multigrid-flavoured mix. Iteration t works on level
// ℓ = t mod K, K = max(1, ⌈log2 n⌉), where neighbours are s_t = 2^ℓ ranks away
// (a coarser level talks to farther, fewer ranks; halos shrink with ℓ).
// Rank r's neighbours are r − s_t and r + s_t when inside 0..n−1 (d_t(r) of them).
// Per iteration every rank:
//   compute · d × MPI_Irecv · pack · d × MPI_Isend · MPI_Waitall
//   · MPI_Allreduce(MPI_COMM_WORLD) · MPI_Allreduce on its even/odd half
// Halo messages: tag 30 toward higher ranks, 31 toward lower, MPI_COMM_WORLD.
//
// With M_t = 2·max(0, n − s_t) (directed neighbour pairs at iteration t):
//   messages             = Σ_t M_t
//   collectives          = i world instances (n members) + i·h even/odd
//                          instances (h = 2, or 1 when n = 1); i·2n members in all
//   region instances(r)  = 1 + Σ_t (5 + 2·d_t(r))
//   OTF2 event records   = 2n + 14ni + 8·Σ_t M_t
//     per rank and iteration: compute 2, Irecv 3d, pack 2, Isend 3d,
//     Waitall 2 + 2d, two Allreduce 8.
#include <algorithm>

#include "synth/patterns/patterns.h"

namespace weft::synth {
namespace {

constexpr TimeNs kSmoothNs = 40'000;
constexpr TimeNs kPackNs = 3'000;
constexpr std::uint64_t kFinestHaloBytes = 16 * 1024;
constexpr std::uint64_t kCoarsestHaloBytes = 64;
constexpr std::uint64_t kNormBytes = 8;
constexpr std::uint32_t kTagUp = 30;
constexpr std::uint32_t kTagDown = 31;

}  // namespace

void simulate_amg_like_iteration(SimContext& ctx, std::int32_t iteration) {
  const std::int32_t n = ctx.procs();
  const std::int32_t levels = std::max(1, ceil_log2(n));
  const std::int32_t level = iteration % levels;
  const std::int64_t s = std::int64_t{1} << level;
  const std::uint64_t bytes = std::max(kCoarsestHaloBytes, kFinestHaloBytes >> level);

  // scratch[r*4 + 0] = arrival of r's message to r − s, [r*4 + 1] to r + s.
  for (std::int32_t r = 0; r < n; ++r) {
    const bool has_down = r - s >= 0;
    const bool has_up = r + s < n;
    const int d = int{has_down} + int{has_up};
    ctx.compute(r, iteration, 0, Region::Compute, kSmoothNs);
    for (int k = 0; k < d; ++k) ctx.post_irecv(r, static_cast<std::uint32_t>(k));
    ctx.compute(r, iteration, 1, Region::Pack, kPackNs);
    auto request = static_cast<std::uint32_t>(d);
    if (has_down)
      ctx.scratch[static_cast<std::size_t>(r) * 4 + 0] =
          ctx.isend(r, kWorldComm, static_cast<std::uint32_t>(r - s), kTagDown, bytes, request++);
    if (has_up)
      ctx.scratch[static_cast<std::size_t>(r) * 4 + 1] =
          ctx.isend(r, kWorldComm, static_cast<std::uint32_t>(r + s), kTagUp, bytes, request++);
  }
  for (std::int32_t r = 0; r < n; ++r) {
    PendingRecv recvs[2];
    int d = 0;
    if (r - s >= 0) {  // the lower neighbour sent up to us
      const auto from = static_cast<std::size_t>(r - s);
      recvs[d] = {kWorldComm, static_cast<std::uint32_t>(from), kTagUp, bytes,
                  static_cast<std::uint32_t>(d), ctx.scratch[from * 4 + 1]};
      ++d;
    }
    if (r + s < n) {  // the upper neighbour sent down to us
      const auto from = static_cast<std::size_t>(r + s);
      recvs[d] = {kWorldComm, static_cast<std::uint32_t>(from), kTagDown, bytes,
                  static_cast<std::uint32_t>(d), ctx.scratch[from * 4 + 0]};
      ++d;
    }
    ctx.waitall(r, recvs, d, static_cast<std::uint32_t>(d), d);
  }
  ctx.collective_on_world(CollectiveOp::Allreduce, Region::MpiAllreduce, kNormBytes);
  for (std::size_t half = 0; half < ctx.comms().subs.size(); ++half)
    ctx.collective_on(half, CollectiveOp::Allreduce, Region::MpiAllreduce, kNormBytes);
}

}  // namespace weft::synth
