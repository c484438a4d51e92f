#include "common/region_kind.h"

#include <array>

namespace weft {
namespace {

bool starts_with_mpi(std::string_view name) {
  return name.size() > 4 && (name.substr(0, 4) == "MPI_" || name.substr(0, 4) == "mpi_");
}

// Compares the part after "MPI_" case-insensitively with a lower-case word.
bool mpi_name_is(std::string_view name, std::string_view lower_suffix) {
  std::string_view rest = name.substr(4);
  if (rest.size() != lower_suffix.size()) return false;
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower_suffix[i]) return false;
  }
  return true;
}

template <size_t N>
bool mpi_name_in(std::string_view name, const std::array<std::string_view, N>& words) {
  for (std::string_view w : words)
    if (mpi_name_is(name, w)) return true;
  return false;
}

constexpr std::array<std::string_view, 4> kSends{"send", "ssend", "bsend", "rsend"};
constexpr std::array<std::string_view, 4> kIsends{"isend", "issend", "ibsend", "irsend"};
constexpr std::array<std::string_view, 2> kRecvs{"recv", "sendrecv"};
constexpr std::array<std::string_view, 1> kIrecvs{"irecv"};
constexpr std::array<std::string_view, 8> kWaits{"wait",    "waitall", "waitany", "waitsome",
                                                 "test",    "testall", "testany", "testsome"};
constexpr std::array<std::string_view, 32> kCollectives{
    "barrier",        "bcast",          "reduce",          "allreduce",      "gather",
    "gatherv",        "allgather",      "allgatherv",      "scatter",        "scatterv",
    "alltoall",       "alltoallv",      "alltoallw",       "reduce_scatter", "reduce_scatter_block",
    "scan",           "exscan",         "ibarrier",        "ibcast",         "ireduce",
    "iallreduce",     "igather",        "igatherv",        "iallgather",     "iallgatherv",
    "iscatter",       "iscatterv",      "ialltoall",       "ialltoallv",     "ialltoallw",
    "ireduce_scatter", "iscan"};

}  // namespace

RegionKind classify_region(std::string_view name, bool is_mpi_paradigm) {
  if (!starts_with_mpi(name)) return is_mpi_paradigm ? RegionKind::MpiOther : RegionKind::Compute;
  if (mpi_name_in(name, kSends)) return RegionKind::Send;
  if (mpi_name_in(name, kIsends)) return RegionKind::Isend;
  if (mpi_name_in(name, kRecvs)) return RegionKind::Recv;
  if (mpi_name_in(name, kIrecvs)) return RegionKind::Irecv;
  if (mpi_name_in(name, kWaits)) return RegionKind::Wait;
  if (mpi_name_in(name, kCollectives)) return RegionKind::Collective;
  return RegionKind::MpiOther;
}

}  // namespace weft
