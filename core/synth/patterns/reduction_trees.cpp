// allreduce-binomial and merge-tree: binomial trees of blocking MPI_Send /
// MPI_Recv on MPI_COMM_WORLD. Both use the same pairing: at level k
// (2^k < n), each still-active rank r with bit k set (r mod 2^(k+1) = 2^k)
// sends to r − 2^k and drops out. Let c(r) be the number of children of r:
// the levels k with r mod 2^(k+1) = 0 and r + 2^k < n (Σ c(r) = n − 1).
//
// allreduce-binomial — per iteration: compute · binomial reduce to rank 0
//   (tag 10) · binomial broadcast from rank 0 (tag 11, levels in reverse).
//   messages             = 2i·(n − 1)
//   collectives          = 0
//   region instances(r)  = 1 + i·(1 + 2·(c(r) + [r ≠ 0]))    (Σ_r = n + i·(5n − 4))
//   OTF2 event records   = 2n + i·(2n + 12·(n − 1))
//
// merge-tree — per iteration: compute · the reduce half only, with growing
//   messages (bytes × 2^k, tag k) and a `merge` compute region after every
//   receive, whose base length also grows with 2^k.
//   messages             = i·(n − 1)
//   collectives          = 0
//   region instances(r)  = 1 + i·(1 + [r ≠ 0] + 2·c(r))     (Σ_r = n + i·(4n − 3))
//   OTF2 event records   = 2n + i·(2n + 8·(n − 1))
#include "synth/patterns/patterns.h"

namespace weft::synth {
namespace {

constexpr TimeNs kAllreduceComputeNs = 30'000;
constexpr std::uint64_t kAllreduceBytes = 1024;
constexpr std::uint32_t kReduceTag = 10;
constexpr std::uint32_t kBroadcastTag = 11;

constexpr TimeNs kMergeLeafComputeNs = 40'000;
constexpr TimeNs kMergeNs = 5'000;
constexpr std::uint64_t kMergeBytes = 2 * 1024;

// Sends from child to parent and receives it at the parent.
void tree_message(SimContext& ctx, std::int32_t from, std::int32_t to, std::uint32_t tag,
                  std::uint64_t bytes) {
  const TimeNs arrival =
      ctx.blocking_send(from, kWorldComm, static_cast<std::uint32_t>(to), tag, bytes);
  ctx.blocking_recv(to, kWorldComm, static_cast<std::uint32_t>(from), tag, bytes, arrival);
}

}  // namespace

void simulate_allreduce_binomial_iteration(SimContext& ctx, std::int32_t iteration) {
  const std::int32_t n = ctx.procs();
  for (std::int32_t r = 0; r < n; ++r)
    ctx.compute(r, iteration, 0, Region::Compute, kAllreduceComputeNs);
  std::int64_t top = 1;
  for (std::int64_t mask = 1; mask < n; mask <<= 1) {
    top = mask;
    for (std::int64_t r = 0; r + mask < n; r += 2 * mask)
      tree_message(ctx, static_cast<std::int32_t>(r + mask), static_cast<std::int32_t>(r),
                   kReduceTag, kAllreduceBytes);
  }
  if (n < 2) return;
  for (std::int64_t mask = top; mask >= 1; mask >>= 1)
    for (std::int64_t r = 0; r + mask < n; r += 2 * mask)
      tree_message(ctx, static_cast<std::int32_t>(r), static_cast<std::int32_t>(r + mask),
                   kBroadcastTag, kAllreduceBytes);
}

void simulate_merge_tree_iteration(SimContext& ctx, std::int32_t iteration) {
  const std::int32_t n = ctx.procs();
  for (std::int32_t r = 0; r < n; ++r)
    ctx.compute(r, iteration, 0, Region::Compute, kMergeLeafComputeNs);
  std::uint32_t level = 0;
  for (std::int64_t mask = 1; mask < n; mask <<= 1, ++level) {
    for (std::int64_t r = 0; r + mask < n; r += 2 * mask) {
      const auto parent = static_cast<std::int32_t>(r);
      tree_message(ctx, static_cast<std::int32_t>(r + mask), parent, level,
                   kMergeBytes * static_cast<std::uint64_t>(mask));
      ctx.compute(parent, iteration, 1 + level, Region::Merge, kMergeNs * mask);
    }
  }
}

}  // namespace weft::synth
