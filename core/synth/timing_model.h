#pragma once
// The LogP-like cost model of the simulator. Numbers are round, plausible
// values for a cluster interconnect; what matters for ground truth is that
// they are fixed, so a trace's waiting times follow from the formulas below.
//
//   message arrival      = send record time + kLatencyNs + bytes / kBytesPerNs
//   blocking call end    = max(arrival, call start) + kCallNs   (MPI_Recv, MPI_Wait*)
//   non-waiting call     = kCallNs                               (MPI_Isend, MPI_Irecv)
//   MPI_Send (eager)     = kCallNs + bytes / kBytesPerNs          (copy out, never waits)
//   collective end       = max(member entries) + ceil(log2 size) * (kLatencyNs + bytes / kBytesPerNs)
//                          + kCallNs, the same for every member
#include <cstdint>

#include "common/types.h"

namespace weft::synth {

inline constexpr TimeNs kLatencyNs = 1500;
inline constexpr std::uint64_t kBytesPerNs = 10;  // 10 GB/s
inline constexpr TimeNs kCallNs = 200;
inline constexpr TimeNs kStartupNs = 1000;   // Enter(main) .. first iteration
inline constexpr TimeNs kShutdownNs = 1000;  // last iteration .. Leave(main)

constexpr TimeNs transfer_ns(std::uint64_t bytes) {
  return static_cast<TimeNs>(bytes / kBytesPerNs);
}

constexpr std::int32_t ceil_log2(std::int64_t value) {
  std::int32_t levels = 0;
  while ((std::int64_t{1} << levels) < value) ++levels;
  return levels;
}

constexpr TimeNs collective_cost_ns(std::int32_t members, std::uint64_t bytes) {
  return ceil_log2(members) * (kLatencyNs + transfer_ns(bytes)) + kCallNs;
}

}  // namespace weft::synth
