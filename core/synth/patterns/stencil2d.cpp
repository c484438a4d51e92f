// stencil2d: a 2D five-point halo exchange on a px × py process grid
// (stencil_grid: px the largest divisor of n with px ≤ √n, py = n / px; not
// periodic, so edge ranks have fewer neighbours).
//
// Per iteration, every rank r with d(r) grid neighbours (0..4):
//   compute · d × MPI_Irecv · pack · d × MPI_Isend · MPI_Waitall · MPI_Allreduce(world)
// East/west messages travel on the rank's row communicator ("MPI_COMM_SPLIT
// row R", peers numbered by column), north/south ones on MPI_COMM_WORLD; this
// exercises the sub-communicator rank translation of importers.
//
// Counts for n ranks, i iterations, with D = 2·(px·(py−1) + py·(px−1)) = 4n − 2px − 2py
// (the directed neighbour pairs):
//   messages             = i·D
//   collectives          = i instances on MPI_COMM_WORLD, n members each
//   region instances(r)  = 1 + i·(4 + 2·d(r))
//   OTF2 event records   = 2n + i·(10n + 8D)
//     per rank and iteration: compute 2, Irecv 3d, pack 2, Isend 3d,
//     Waitall 2 + 2d (d MpiIrecv + d MpiIsendComplete), Allreduce 4.
#include "synth/patterns/patterns.h"

namespace weft::synth {
namespace {

constexpr TimeNs kComputeNs = 50'000;
constexpr TimeNs kPackNs = 4'000;
constexpr std::uint64_t kHaloBytes = 8 * 1024;
constexpr std::uint64_t kResidualBytes = 8;

// Directions a message travels; the tag of a message is its direction.
enum Direction : std::uint32_t { East = 0, West = 1, North = 2, South = 3 };

struct Neighbour {
  std::int32_t rank;        // world rank
  Direction outgoing;       // direction of our message to it
  Direction incoming;       // direction of its message to us
  bool in_row;              // exchanged on the row communicator
};

// The neighbours of `rank` in a fixed order (W, E, N, S); returns their count.
int grid_neighbours(const Grid& grid, std::int32_t rank, Neighbour* out) {
  const std::int32_t col = rank % grid.px;
  const std::int32_t row = rank / grid.px;
  int count = 0;
  if (col > 0) out[count++] = {rank - 1, West, East, true};
  if (col + 1 < grid.px) out[count++] = {rank + 1, East, West, true};
  if (row > 0) out[count++] = {rank - grid.px, North, South, false};
  if (row + 1 < grid.py) out[count++] = {rank + grid.px, South, North, false};
  return count;
}

}  // namespace

void simulate_stencil2d_iteration(SimContext& ctx, std::int32_t iteration) {
  const std::int32_t n = ctx.procs();
  const Grid grid = stencil_grid(n);
  Neighbour nb[4];

  // Phase 1: everything up to the sends depends only on the rank's own clock.
  // scratch[r*4 + direction] keeps the arrival time of r's message in that direction.
  for (std::int32_t r = 0; r < n; ++r) {
    const int d = grid_neighbours(grid, r, nb);
    const CommId row_comm = CommLayout::sub_comm_id(static_cast<std::size_t>(r / grid.px));
    ctx.compute(r, iteration, 0, Region::Compute, kComputeNs);
    for (int k = 0; k < d; ++k) ctx.post_irecv(r, static_cast<std::uint32_t>(k));
    ctx.compute(r, iteration, 1, Region::Pack, kPackNs);
    for (int k = 0; k < d; ++k) {
      const bool row = nb[k].in_row;
      const std::uint32_t peer =
          static_cast<std::uint32_t>(row ? nb[k].rank % grid.px : nb[k].rank);
      ctx.scratch[static_cast<std::size_t>(r) * 4 + nb[k].outgoing] =
          ctx.isend(r, row ? row_comm : kWorldComm, peer, nb[k].outgoing, kHaloBytes,
                    static_cast<std::uint32_t>(d + k));
    }
  }
  // Phase 2: each Waitall ends when the last incoming halo has arrived.
  for (std::int32_t r = 0; r < n; ++r) {
    const int d = grid_neighbours(grid, r, nb);
    const CommId row_comm = CommLayout::sub_comm_id(static_cast<std::size_t>(r / grid.px));
    PendingRecv recvs[4];
    for (int k = 0; k < d; ++k) {
      const bool row = nb[k].in_row;
      recvs[k] = {row ? row_comm : kWorldComm,
                  static_cast<std::uint32_t>(row ? nb[k].rank % grid.px : nb[k].rank),
                  nb[k].incoming, kHaloBytes, static_cast<std::uint32_t>(k),
                  ctx.scratch[static_cast<std::size_t>(nb[k].rank) * 4 + nb[k].incoming]};
    }
    ctx.waitall(r, recvs, d, static_cast<std::uint32_t>(d), d);
  }
  ctx.collective_on_world(CollectiveOp::Allreduce, Region::MpiAllreduce, kResidualBytes);
}

}  // namespace weft::synth
