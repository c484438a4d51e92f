#pragma once
// The state one simulation run shares with the pattern kernels, and the MPI
// call models they are built from.
//
// The simulation is iteration-major over ALL ranks (one clock per rank, plain
// arrays), because a receive's end depends on its sender's clock. Records are
// only produced for the ranks being written, [emit_first, emit_end): the
// writer simulates the whole run once per block of ranks, which costs far
// less than keeping thousands of OTF2 writers open (see otf2_synth_writer.cpp).
//
// Invariant every kernel keeps: each rank's calls are issued in time order
// (its clock only grows), so each rank's records come out time-ordered, which
// OTF2 requires per location. Records of different ranks may interleave.
#include <cstdint>
#include <utility>
#include <vector>

#include "synth/synth_options.h"
#include "synth/timing_model.h"
#include "synth/trace_model.h"

namespace weft::synth {

// A receive that an MPI_Waitall completes.
struct PendingRecv {
  CommId comm = 0;
  std::uint32_t peer = 0;  // sender, rank in comm
  std::uint32_t tag = 0;
  std::uint64_t bytes = 0;
  std::uint32_t request = 0;
  TimeNs arrival = 0;
};

class SimContext {
 public:
  SimContext(const SynthOptions& options, const CommLayout& comms);

  const SynthOptions& options() const { return options_; }
  const CommLayout& comms() const { return comms_; }
  std::int32_t procs() const { return options_.procs; }

  // Per-rank clocks: the time each rank is free to issue its next call.
  std::vector<TimeNs> clock;
  // Per-rank scratch (kScratchSlots per rank) for send times within one phase.
  static constexpr int kScratchSlots = 4;
  std::vector<TimeNs> scratch;
  // Records of the emitted ranks since the last hand-over.
  std::vector<Record> records;

  void set_emit_range(std::int32_t first, std::int32_t end) {
    emit_first_ = first;
    emit_end_ = end;
  }
  bool emits(std::int32_t rank) const { return rank >= emit_first_ && rank < emit_end_; }

  // base × (1 + jitter·noise(rank, iteration, slot)) × delay factor, at least 1 ns.
  TimeNs compute_duration(std::int32_t rank, std::int32_t iteration, std::uint32_t slot,
                          TimeNs base) const;

  // --- call models; each advances clock[rank] and records for emitted ranks ---
  void compute(std::int32_t rank, std::int32_t iteration, std::uint32_t slot, Region region,
               TimeNs base);
  // Eager MPI_Send; returns the message's arrival time at the receiver.
  TimeNs blocking_send(std::int32_t rank, CommId comm, std::uint32_t peer, std::uint32_t tag,
                       std::uint64_t bytes);
  void blocking_recv(std::int32_t rank, CommId comm, std::uint32_t peer, std::uint32_t tag,
                     std::uint64_t bytes, TimeNs arrival);
  void post_irecv(std::int32_t rank, std::uint32_t request);
  // MPI_Isend; returns the arrival time.
  TimeNs isend(std::int32_t rank, CommId comm, std::uint32_t peer, std::uint32_t tag,
               std::uint64_t bytes, std::uint32_t request);
  // MPI_Waitall over `recv_count` receives and `send_count` sends whose
  // requests are send_first_request, +1, ...; completions are recorded at the end.
  void waitall(std::int32_t rank, const PendingRecv* recvs, int recv_count,
               std::uint32_t send_first_request, int send_count);
  // A blocking collective over the members first, first+stride, ... (size of
  // them); all members leave together.
  void collective(CommId comm, std::int32_t first, std::int32_t stride, std::int32_t size,
                  CollectiveOp op, Region region, std::uint64_t bytes);
  void collective_on(std::size_t sub, CollectiveOp op, Region region, std::uint64_t bytes);
  void collective_on_world(CollectiveOp op, Region region, std::uint64_t bytes) {
    collective(kWorldComm, 0, 1, procs(), op, region, bytes);
  }

  // --- raw records (emitted ranks only) ---
  void record(const Record& r) {
    if (emits(static_cast<std::int32_t>(r.rank))) records.push_back(r);
  }
  Record& push_record(RecordType type, std::int32_t rank, TimeNs t);
  void push_message_record(RecordType type, std::int32_t rank, TimeNs t, CommId comm,
                           std::uint32_t peer, std::uint32_t tag, std::uint64_t bytes,
                           std::uint32_t request);
  void enter(std::int32_t rank, TimeNs t, Region region);
  void leave(std::int32_t rank, TimeNs t, Region region);

 private:
  double delay_factor(std::int32_t rank, std::int32_t iteration) const;

  const SynthOptions& options_;
  const CommLayout& comms_;
  // (iteration, rank) → product of the factors given for it, sorted for lookup.
  std::vector<std::pair<std::pair<std::int32_t, std::int32_t>, double>> delays_;
  std::int32_t emit_first_ = 0;
  std::int32_t emit_end_ = 0;
};

}  // namespace weft::synth
