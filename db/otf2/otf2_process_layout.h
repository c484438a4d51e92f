#pragma once
// From OTF2 definitions to weft's processes and communicators: the display
// order of locations (dense process indices), MPI ranks, and the rank → process
// translation of every communicator.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/types.h"
#include "otf2/otf2_definitions.h"

namespace weft::db {

struct ProcessInfo {
  std::uint64_t location_ref = 0;
  std::string name;        // "Rank 3", "Rank 3 / OMP thread 1", "Process / CUDA[0:2]"
  std::string kind;        // cpu, gpu, metric, other
  std::string group_name;  // OTF2 location group name
  std::int64_t rank = -1;  // MPI rank of a master location, -1 otherwise
  std::uint64_t expected_records = 0;  // "# Events" of the location definition
};

struct CommInfo {
  std::uint32_t ref = 0;
  std::string name;
  std::uint32_t parent = 0;  // OTF2_UNDEFINED_COMM when none
  // COMM_SELF-type group: each process that uses the communicator has its own
  // one-member instance, so rank 0 means "the calling process".
  bool self_like = false;
  std::vector<ProcessIndex> process_of_rank;  // empty when self_like
};

struct ProcessLayout {
  std::vector<ProcessInfo> processes;  // index = process, display order
  std::unordered_map<std::uint64_t, ProcessIndex> process_of_location;
  // The process of the MPI rank a process belongs to (its location group's
  // master location; itself outside MPI). Messages are matched between ranks,
  // so a send from a rank's OpenMP thread still pairs with the receive.
  std::vector<ProcessIndex> rank_process;
  std::vector<CommInfo> comms;
  std::unordered_map<std::uint32_t, std::uint32_t> comm_index;  // comm ref → index in comms

  // The process that is rank `rank` of `comm` as seen by `caller`; -1 if the
  // communicator or rank is unknown (then the message stays unmatched).
  ProcessIndex process_of(std::uint32_t comm, std::uint32_t rank, ProcessIndex caller) const {
    return process_of(find_comm(comm), rank, caller);
  }
  // The same for a communicator already looked up (nullptr: unknown).
  static ProcessIndex process_of(const CommInfo* c, std::uint32_t rank, ProcessIndex caller) {
    if (!c) return -1;
    if (c->self_like) return rank == 0 ? caller : -1;
    return rank < c->process_of_rank.size() ? c->process_of_rank[rank] : -1;
  }
  const CommInfo* find_comm(std::uint32_t comm) const {
    auto it = comm_index.find(comm);
    return it == comm_index.end() ? nullptr : &comms[it->second];
  }
};

// Orders locations by location group (groups holding MPI ranks first, by
// rank), then CPU threads, accelerator streams, metric locations, then by
// location reference; and resolves communicator groups to processes.
ProcessLayout build_process_layout(const Otf2Definitions& defs);

}  // namespace weft::db
