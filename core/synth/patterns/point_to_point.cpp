// ring and pingpong: blocking MPI_Send / MPI_Recv on MPI_COMM_WORLD (n ≥ 2).
//
// ring — per iteration every rank: compute · MPI_Send to (r+1) mod n (tag 0)
//        · MPI_Recv from (r−1) mod n. Sends are eager, so no deadlock.
//   messages             = n·i
//   collectives          = 0
//   region instances(r)  = 1 + 3i
//   OTF2 event records   = 2n + 8ni   (compute 2, Send 3, Recv 3)
//
// pingpong — per iteration every rank computes; then rank 0 sends to rank 1
//        (tag 0), rank 1 receives and replies (tag 1), rank 0 receives.
//        Ranks ≥ 2 compute only.
//   messages             = 2i
//   collectives          = 0
//   region instances(r)  = 1 + 3i for r ∈ {0, 1}, 1 + i otherwise
//   OTF2 event records   = 2n + i·(2n + 12)
#include "synth/patterns/patterns.h"

namespace weft::synth {
namespace {

constexpr TimeNs kRingComputeNs = 20'000;
constexpr std::uint64_t kRingBytes = 4 * 1024;
constexpr TimeNs kPingpongComputeNs = 10'000;
constexpr std::uint64_t kPingpongBytes = 64 * 1024;

}  // namespace

void simulate_ring_iteration(SimContext& ctx, std::int32_t iteration) {
  const std::int32_t n = ctx.procs();
  // scratch[r*4] = arrival time of r's message at its right neighbour.
  for (std::int32_t r = 0; r < n; ++r) {
    ctx.compute(r, iteration, 0, Region::Compute, kRingComputeNs);
    const auto right = static_cast<std::uint32_t>((r + 1) % n);
    ctx.scratch[static_cast<std::size_t>(r) * 4] =
        ctx.blocking_send(r, kWorldComm, right, 0, kRingBytes);
  }
  for (std::int32_t r = 0; r < n; ++r) {
    const std::int32_t left = (r + n - 1) % n;
    ctx.blocking_recv(r, kWorldComm, static_cast<std::uint32_t>(left), 0, kRingBytes,
                      ctx.scratch[static_cast<std::size_t>(left) * 4]);
  }
}

void simulate_pingpong_iteration(SimContext& ctx, std::int32_t iteration) {
  for (std::int32_t r = 0; r < ctx.procs(); ++r)
    ctx.compute(r, iteration, 0, Region::Compute, kPingpongComputeNs);
  const TimeNs ping = ctx.blocking_send(0, kWorldComm, 1, 0, kPingpongBytes);
  ctx.blocking_recv(1, kWorldComm, 0, 0, kPingpongBytes, ping);
  const TimeNs pong = ctx.blocking_send(1, kWorldComm, 0, 1, kPingpongBytes);
  ctx.blocking_recv(0, kWorldComm, 1, 1, kPingpongBytes, pong);
}

}  // namespace weft::synth
