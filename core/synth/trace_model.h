#pragma once
// The vocabulary shared by the simulator and the archive writer: the regions
// every synthetic archive defines, its communicators, and the plain event
// records the simulator emits. Nothing here knows OTF2; the writer maps these
// values onto OTF2 definitions and records one to one.
#include <cstdint>
#include <string>
#include <vector>

#include "common/types.h"
#include "synth/synth_options.h"

namespace weft::synth {

// Region references of every archive (dense, in this order). All are defined
// even when a pattern does not use them, so importers see a fixed region set.
enum class Region : std::uint32_t {
  Main, Compute, Pack, Merge,
  MpiSend, MpiRecv, MpiIsend, MpiIrecv, MpiWait, MpiWaitall, MpiAllreduce, MpiBarrier,
  Count
};

enum class RegionRole : std::uint8_t { Function, Point2point, Collective, Barrier };

struct RegionInfo {
  const char* name;
  bool is_mpi;  // paradigm MPI; otherwise USER
  RegionRole role;
};

inline constexpr RegionInfo kRegions[] = {
    {"main", false, RegionRole::Function},
    {"compute", false, RegionRole::Function},
    {"pack", false, RegionRole::Function},
    {"merge", false, RegionRole::Function},
    {"MPI_Send", true, RegionRole::Point2point},
    {"MPI_Recv", true, RegionRole::Point2point},
    {"MPI_Isend", true, RegionRole::Point2point},
    {"MPI_Irecv", true, RegionRole::Point2point},
    {"MPI_Wait", true, RegionRole::Function},
    {"MPI_Waitall", true, RegionRole::Function},
    {"MPI_Allreduce", true, RegionRole::Collective},
    {"MPI_Barrier", true, RegionRole::Barrier},
};
static_assert(std::size(kRegions) == static_cast<std::size_t>(Region::Count));

enum class CollectiveOp : std::uint8_t { Barrier, Allreduce };

// Communicator references: 0 is MPI_COMM_WORLD, 1 + j is sub-communicator j.
using CommId = std::uint32_t;
inline constexpr CommId kWorldComm = 0;
inline constexpr std::uint32_t kNoRoot = 0xffffffffu;  // collective without a root

// A communicator from MPI_Comm_split whose members are an arithmetic progression
// of world ranks: member k (its rank in the communicator) is first + k * stride.
// Even/odd splits and the rows of a 2D grid both have this shape, so no
// per-member tables are needed at 65,536 ranks.
struct SubComm {
  std::string name;
  std::int32_t first = 0;
  std::int32_t stride = 1;
  std::int32_t size = 0;

  std::int32_t world_rank(std::int32_t member) const { return first + member * stride; }
  std::int32_t member_rank(std::int32_t world) const { return (world - first) / stride; }
};

struct CommLayout {
  std::vector<SubComm> subs;
  static CommId sub_comm_id(std::size_t index) { return static_cast<CommId>(1 + index); }
};

// The communicators a pattern's archive defines: rows of the process grid for
// stencil2d, an even/odd split for every other pattern (empty odd half at n=1 left out).
CommLayout comm_layout(const SynthOptions& options);

// The process grid of stencil2d: px columns × py rows, px the largest divisor
// of n not above √n (a prime n gives a 1 × n chain). Rank r is at column r % px, row r / px.
struct Grid {
  std::int32_t px = 1;
  std::int32_t py = 1;
};
Grid stencil_grid(std::int32_t procs);

enum class RecordType : std::uint8_t {
  Enter, Leave,
  MpiSend, MpiRecv,
  MpiIsend, MpiIsendComplete, MpiIrecvRequest, MpiIrecv,
  CollectiveBegin, CollectiveEnd,
};

// One OTF2 event record, fixed size. Fields a type does not use are zero.
// `peer` is the receiver (sends) or sender (receives) as a rank IN `comm`.
struct Record {
  TimeNs time = 0;          // ns from the trace start
  std::uint64_t bytes = 0;  // message length; for collectives the bytes sent
  std::uint64_t bytes_received = 0;
  std::uint32_t rank = 0;   // world rank = location
  RecordType type = RecordType::Enter;
  CollectiveOp op = CollectiveOp::Barrier;
  std::uint32_t region = 0;
  std::uint32_t peer = 0;   // root for collectives (kNoRoot when none)
  CommId comm = 0;
  std::uint32_t tag = 0;
  std::uint32_t request = 0;
};

}  // namespace weft::synth
