#include "synth/sim_context.h"

#include <algorithm>
#include <cmath>

#include "synth/prng.h"

namespace weft::synth {

SimContext::SimContext(const SynthOptions& options, const CommLayout& comms)
    : clock(static_cast<std::size_t>(options.procs), 0),
      scratch(static_cast<std::size_t>(options.procs) * kScratchSlots, 0),
      options_(options),
      comms_(comms) {
  for (const Delay& d : options.delays) delays_.push_back({{d.iteration, d.rank}, d.factor});
  std::sort(delays_.begin(), delays_.end());
  // Two delays for the same rank and iteration compound.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < delays_.size(); ++i) {
    if (kept > 0 && delays_[kept - 1].first == delays_[i].first)
      delays_[kept - 1].second *= delays_[i].second;
    else
      delays_[kept++] = delays_[i];
  }
  delays_.resize(kept);
}

double SimContext::delay_factor(std::int32_t rank, std::int32_t iteration) const {
  if (delays_.empty()) return 1.0;
  const std::pair<std::int32_t, std::int32_t> key{iteration, rank};
  auto it = std::lower_bound(delays_.begin(), delays_.end(), key,
                             [](const auto& entry, const auto& k) { return entry.first < k; });
  return it != delays_.end() && it->first == key ? it->second : 1.0;
}

TimeNs SimContext::compute_duration(std::int32_t rank, std::int32_t iteration,
                                    std::uint32_t slot, TimeNs base) const {
  double scale = delay_factor(rank, iteration);
  if (options_.jitter > 0.0)
    scale *= 1.0 + options_.jitter * symmetric_noise(options_.seed, static_cast<std::uint32_t>(rank),
                                                     static_cast<std::uint32_t>(iteration), slot);
  return std::max<TimeNs>(1, std::llround(static_cast<double>(base) * scale));
}

// Appends a record of `type` for `rank` at `t`; callers fill the type's fields.
Record& SimContext::push_record(RecordType type, std::int32_t rank, TimeNs t) {
  Record& r = records.emplace_back();
  r.type = type;
  r.rank = static_cast<std::uint32_t>(rank);
  r.time = t;
  return r;
}

// A point-to-point record: the peer is a rank in `comm`.
void SimContext::push_message_record(RecordType type, std::int32_t rank, TimeNs t, CommId comm,
                                     std::uint32_t peer, std::uint32_t tag, std::uint64_t bytes,
                                     std::uint32_t request) {
  Record& r = push_record(type, rank, t);
  r.peer = peer;
  r.comm = comm;
  r.tag = tag;
  r.bytes = bytes;
  r.request = request;
}

void SimContext::enter(std::int32_t rank, TimeNs t, Region region) {
  if (!emits(rank)) return;
  push_record(RecordType::Enter, rank, t).region = static_cast<std::uint32_t>(region);
}

void SimContext::leave(std::int32_t rank, TimeNs t, Region region) {
  if (!emits(rank)) return;
  push_record(RecordType::Leave, rank, t).region = static_cast<std::uint32_t>(region);
}

void SimContext::compute(std::int32_t rank, std::int32_t iteration, std::uint32_t slot,
                         Region region, TimeNs base) {
  TimeNs& t = clock[static_cast<std::size_t>(rank)];
  enter(rank, t, region);
  t += compute_duration(rank, iteration, slot, base);
  leave(rank, t, region);
}

TimeNs SimContext::blocking_send(std::int32_t rank, CommId comm, std::uint32_t peer,
                                 std::uint32_t tag, std::uint64_t bytes) {
  TimeNs& t = clock[static_cast<std::size_t>(rank)];
  enter(rank, t, Region::MpiSend);
  const TimeNs sent_at = t;
  if (emits(rank))
    push_message_record(RecordType::MpiSend, rank, sent_at, comm, peer, tag, bytes, 0);
  t += kCallNs + transfer_ns(bytes);
  leave(rank, t, Region::MpiSend);
  return sent_at + kLatencyNs + transfer_ns(bytes);
}

void SimContext::blocking_recv(std::int32_t rank, CommId comm, std::uint32_t peer,
                               std::uint32_t tag, std::uint64_t bytes, TimeNs arrival) {
  TimeNs& t = clock[static_cast<std::size_t>(rank)];
  enter(rank, t, Region::MpiRecv);
  t = std::max(t, arrival) + kCallNs;
  if (emits(rank)) push_message_record(RecordType::MpiRecv, rank, t, comm, peer, tag, bytes, 0);
  leave(rank, t, Region::MpiRecv);
}

void SimContext::post_irecv(std::int32_t rank, std::uint32_t request) {
  TimeNs& t = clock[static_cast<std::size_t>(rank)];
  enter(rank, t, Region::MpiIrecv);
  if (emits(rank)) push_record(RecordType::MpiIrecvRequest, rank, t).request = request;
  t += kCallNs;
  leave(rank, t, Region::MpiIrecv);
}

TimeNs SimContext::isend(std::int32_t rank, CommId comm, std::uint32_t peer, std::uint32_t tag,
                         std::uint64_t bytes, std::uint32_t request) {
  TimeNs& t = clock[static_cast<std::size_t>(rank)];
  enter(rank, t, Region::MpiIsend);
  const TimeNs sent_at = t;
  if (emits(rank))
    push_message_record(RecordType::MpiIsend, rank, sent_at, comm, peer, tag, bytes, request);
  t += kCallNs;
  leave(rank, t, Region::MpiIsend);
  return sent_at + kLatencyNs + transfer_ns(bytes);
}

void SimContext::waitall(std::int32_t rank, const PendingRecv* recvs, int recv_count,
                         std::uint32_t send_first_request, int send_count) {
  TimeNs& t = clock[static_cast<std::size_t>(rank)];
  enter(rank, t, Region::MpiWaitall);
  TimeNs last_arrival = t;
  for (int k = 0; k < recv_count; ++k) last_arrival = std::max(last_arrival, recvs[k].arrival);
  t = last_arrival + kCallNs;
  if (emits(rank)) {
    for (int k = 0; k < recv_count; ++k)
      push_message_record(RecordType::MpiIrecv, rank, t, recvs[k].comm, recvs[k].peer,
                          recvs[k].tag, recvs[k].bytes, recvs[k].request);
    for (int k = 0; k < send_count; ++k)
      push_record(RecordType::MpiIsendComplete, rank, t).request =
          send_first_request + static_cast<std::uint32_t>(k);
  }
  leave(rank, t, Region::MpiWaitall);
}

void SimContext::collective(CommId comm, std::int32_t first, std::int32_t stride,
                            std::int32_t size, CollectiveOp op, Region region,
                            std::uint64_t bytes) {
  TimeNs last_entry = 0;
  for (std::int32_t k = 0; k < size; ++k)
    last_entry = std::max(last_entry, clock[static_cast<std::size_t>(first + k * stride)]);
  const TimeNs end = last_entry + collective_cost_ns(size, bytes);
  const std::uint64_t moved = op == CollectiveOp::Barrier ? 0 : bytes;
  for (std::int32_t k = 0; k < size; ++k) {
    const std::int32_t rank = first + k * stride;
    TimeNs& t = clock[static_cast<std::size_t>(rank)];
    if (emits(rank)) {
      enter(rank, t, region);
      push_record(RecordType::CollectiveBegin, rank, t);
      Record& done = push_record(RecordType::CollectiveEnd, rank, end);
      done.op = op;
      done.comm = comm;
      done.peer = kNoRoot;
      done.bytes = moved;
      done.bytes_received = moved;
      leave(rank, end, region);
    }
    t = end;
  }
}

void SimContext::collective_on(std::size_t sub, CollectiveOp op, Region region,
                               std::uint64_t bytes) {
  const SubComm& c = comms_.subs[sub];
  collective(CommLayout::sub_comm_id(sub), c.first, c.stride, c.size, op, region, bytes);
}

}  // namespace weft::synth
