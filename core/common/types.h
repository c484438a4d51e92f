#pragma once
// Basic scalar conventions shared by every layer (see ../shared/DESIGN.md):
// times are int64 nanoseconds from the trace start; processes are dense int32
// indices in display order.
#include <cstdint>

namespace weft {

using TimeNs = std::int64_t;
using ProcessIndex = std::int32_t;
using RegionIndex = std::int32_t;
using EventId = std::int64_t;

// What a region does, as far as the structure analysis and the colors care.
// Stored as an integer in regions.kind; the values are part of the schema
// (docs/schema.md) and must not be renumbered.
enum class RegionKind : std::uint8_t {
  Compute = 0,        // user code, not a recognized runtime call
  Send = 1,           // MPI_Send, MPI_Ssend, MPI_Bsend, MPI_Rsend
  Isend = 2,          // MPI_Isend and friends
  Recv = 3,           // MPI_Recv
  Irecv = 4,          // MPI_Irecv
  Wait = 5,           // MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Test*
  Collective = 6,     // MPI_Allreduce, MPI_Barrier, MPI_Bcast, ... (blocking and I-variants)
  MpiOther = 7,       // any other MPI_* call (MPI_Init, MPI_Comm_split, ...)
  OtherParadigm = 8,  // OpenMP, CUDA, HIP, OpenCL, ... regions
};

constexpr const char* region_kind_name(RegionKind k) {
  switch (k) {
    case RegionKind::Compute: return "compute";
    case RegionKind::Send: return "send";
    case RegionKind::Isend: return "isend";
    case RegionKind::Recv: return "recv";
    case RegionKind::Irecv: return "irecv";
    case RegionKind::Wait: return "wait";
    case RegionKind::Collective: return "collective";
    case RegionKind::MpiOther: return "mpi_other";
    case RegionKind::OtherParadigm: return "other";
  }
  return "compute";
}

}  // namespace weft
