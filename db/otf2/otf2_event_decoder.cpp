#include "otf2/otf2_event_decoder.h"

#include <memory>
#include <unordered_map>

#include "common/error.h"
#include "otf2/otf2_location_reader.h"

namespace weft::db {
namespace {

struct Frame {
  TimeNs start_ns;
  EventId id;
  std::uint32_t region;
  // Index into the location's collective_members of a collective whose end
  // record fell in this region instance: its end_ns is the region's end,
  // known at the Leave.
  std::int64_t collective_member;
};

struct PendingIrecv {
  EventId post_event;
  std::uint64_t seq;
};

// Open Isend/Irecv requests of one location: a handful at a time in real
// codes, so a flat vector searched from the back beats a hash map (no node
// allocation per message).
template <class V>
class RequestTable {
 public:
  void put(std::uint64_t request, const V& value) {
    for (auto& [r, v] : open_)
      if (r == request) {
        v = value;
        return;
      }
    open_.push_back({request, value});
  }
  bool take(std::uint64_t request, V& value) {
    for (size_t i = open_.size(); i-- > 0;) {
      if (open_[i].first != request) continue;
      value = open_[i].second;
      open_[i] = open_.back();
      open_.pop_back();
      return true;
    }
    return false;
  }

 private:
  std::vector<std::pair<std::uint64_t, V>> open_;
};

// State of one location's pass. OTF2 calls the static callbacks with a
// pointer to it; they never throw (C frames in between), they record the
// problem and interrupt the reader instead.
class LocationDecoder {
 public:
  LocationDecoder(const ProcessLayout& layout, ProcessIndex process, EventId first_event,
                  const TickConverter& ticks, DecodeTotals& totals, LocationRecords& out,
                  EventRowBuffer& rows)
      : layout_(layout),
        process_(process),
        next_event_(first_event),
        first_event_(first_event),
        ticks_(ticks),
        totals_(totals),
        out_(out),
        rows_(rows) {
    stack_.reserve(64);
  }

  static std::unique_ptr<OTF2_EvtReaderCallbacks, void (*)(OTF2_EvtReaderCallbacks*)> callbacks();

  // Closes regions still open at the location's last timestamp.
  void finish() {
    while (!stack_.empty()) {
      ++totals_.unclosed_regions;
      leave_top(last_ns_);
    }
  }
  EventId events() const { return next_event_ - first_event_; }
  bool failed() const { return failed_; }
  std::uint64_t bad_ticks() const { return bad_ticks_; }
  std::uint64_t previous_ticks() const { return last_ticks_; }

 private:
  // Checks time order and converts; false (and the reader stops) if time went back.
  bool advance(OTF2_TimeStamp ticks) {
    if (ticks < last_ticks_) {
      failed_ = true;
      bad_ticks_ = ticks;
      return false;
    }
    last_ticks_ = ticks;
    last_ns_ = ticks_.to_ns(ticks);
    if (last_ns_ > totals_.trace_end_ns) totals_.trace_end_ns = last_ns_;
    ++totals_.handled_records;
    return true;
  }
  EventId current_event() const { return stack_.empty() ? -1 : stack_.back().id; }

  void leave_top(TimeNs end_ns) {
    const Frame& f = stack_.back();
    rows_.push({f.id, process_, f.start_ns, end_ns, f.region,
                static_cast<std::int32_t>(stack_.size() - 1)});
    if (f.collective_member >= 0)
      out_.collective_members[static_cast<size_t>(f.collective_member)].end_ns = end_ns;
    stack_.pop_back();
  }

  ProcessIndex translate(std::uint32_t comm, std::uint32_t rank) {
    // Codes send on one or two communicators: remembering the last one saves
    // a hash lookup per message.
    if (comm != last_comm_ref_) {
      last_comm_ref_ = comm;
      last_comm_ = layout_.find_comm(comm);
    }
    ProcessIndex p = ProcessLayout::process_of(last_comm_, rank, process_);
    return p < 0 ? -1 : layout_.rank_process[static_cast<size_t>(p)];
  }

  std::uint64_t seq() const { return totals_.handled_records; }

  static LocationDecoder& self(void* user) { return *static_cast<LocationDecoder*>(user); }
  static OTF2_CallbackCode status(bool ok) {
    return ok ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
  }

  static OTF2_CallbackCode on_enter(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                    OTF2_AttributeList*, OTF2_RegionRef region) {
    LocationDecoder& d = self(user);
    if (!d.advance(t)) return status(false);
    d.stack_.push_back({d.last_ns_, d.next_event_++, region, -1});
    return OTF2_CALLBACK_SUCCESS;
  }

  static OTF2_CallbackCode on_leave(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                    OTF2_AttributeList*, OTF2_RegionRef) {
    LocationDecoder& d = self(user);
    if (!d.advance(t)) return status(false);
    // Score-P nests properly; a Leave with nothing open (tracing switched on
    // inside a region) has no start and is counted, not stored.
    if (d.stack_.empty())
      ++d.totals_.unmatched_leaves;
    else
      d.leave_top(d.last_ns_);
    return OTF2_CALLBACK_SUCCESS;
  }

  void add_send(OTF2_CommRef comm, uint32_t receiver, uint32_t tag, uint64_t bytes) {
    out_.sends.push_back(
        {process_, translate(comm, receiver), comm, tag, bytes, current_event(), -1, last_ns_});
  }

  void add_recv(OTF2_CommRef comm, uint32_t sender, uint32_t tag, uint64_t bytes,
                EventId post_event, std::uint64_t post_seq) {
    out_.recvs.push_back({post_seq, translate(comm, sender), process_, comm, tag, bytes,
                          post_event, current_event(), last_ns_});
  }

  static OTF2_CallbackCode on_send(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                   OTF2_AttributeList*, uint32_t receiver, OTF2_CommRef comm,
                                   uint32_t tag, uint64_t bytes) {
    LocationDecoder& d = self(user);
    if (!d.advance(t)) return status(false);
    d.add_send(comm, receiver, tag, bytes);
    return OTF2_CALLBACK_SUCCESS;
  }

  static OTF2_CallbackCode on_isend(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                    OTF2_AttributeList*, uint32_t receiver, OTF2_CommRef comm,
                                    uint32_t tag, uint64_t bytes, uint64_t request) {
    LocationDecoder& d = self(user);
    if (!d.advance(t)) return status(false);
    d.open_isends_.put(request, d.out_.sends.size());
    d.add_send(comm, receiver, tag, bytes);
    return OTF2_CALLBACK_SUCCESS;
  }

  static OTF2_CallbackCode on_isend_complete(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t,
                                             void* user, OTF2_AttributeList*, uint64_t request) {
    LocationDecoder& d = self(user);
    if (!d.advance(t)) return status(false);
    size_t send = 0;
    if (d.open_isends_.take(request, send)) d.out_.sends[send].send_done_event = d.current_event();
    return OTF2_CALLBACK_SUCCESS;
  }

  static OTF2_CallbackCode on_irecv_request(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t,
                                            void* user, OTF2_AttributeList*, uint64_t request) {
    LocationDecoder& d = self(user);
    if (!d.advance(t)) return status(false);
    d.open_irecvs_.put(request, {d.current_event(), d.seq()});
    return OTF2_CALLBACK_SUCCESS;
  }

  static OTF2_CallbackCode on_irecv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                    OTF2_AttributeList*, uint32_t sender, OTF2_CommRef comm,
                                    uint32_t tag, uint64_t bytes, uint64_t request) {
    LocationDecoder& d = self(user);
    if (!d.advance(t)) return status(false);
    // MPI matches receives in posting order, so an Irecv takes its place in
    // the sequence from its request record, not from its completion.
    EventId post_event = -1;
    std::uint64_t post_seq = d.seq();
    PendingIrecv pending{};
    if (d.open_irecvs_.take(request, pending)) {
      post_event = pending.post_event;
      post_seq = pending.seq;
    }
    d.add_recv(comm, sender, tag, bytes, post_event, post_seq);
    return OTF2_CALLBACK_SUCCESS;
  }

  static OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                   OTF2_AttributeList*, uint32_t sender, OTF2_CommRef comm,
                                   uint32_t tag, uint64_t bytes) {
    LocationDecoder& d = self(user);
    if (!d.advance(t)) return status(false);
    d.add_recv(comm, sender, tag, bytes, -1, d.seq());
    return OTF2_CALLBACK_SUCCESS;
  }

  static OTF2_CallbackCode on_collective_begin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t,
                                               void* user, OTF2_AttributeList*) {
    LocationDecoder& d = self(user);
    if (!d.advance(t)) return status(false);
    d.collective_begin_ns_ = d.last_ns_;
    return OTF2_CALLBACK_SUCCESS;
  }

  static OTF2_CallbackCode on_collective_end(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t,
                                             void* user, OTF2_AttributeList*, OTF2_CollectiveOp,
                                             OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                             uint64_t received) {
    LocationDecoder& d = self(user);
    if (!d.advance(t)) return status(false);
    d.add_collective_member(comm, root, sent, received);
    return OTF2_CALLBACK_SUCCESS;
  }

  void add_collective_member(OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t received) {
    auto ci = layout_.comm_index.find(comm);
    bool self_like = ci != layout_.comm_index.end() && layout_.comms[ci->second].self_like;
    ProcessIndex root_process =
        root == OTF2_UNDEFINED_UINT32 ? -1 : layout_.process_of(comm, root, process_);
    std::uint64_t instance = collectives_on_comm_[comm]++;
    TimeNs begin_ns = collective_begin_ns_ >= 0 ? collective_begin_ns_ : last_ns_;
    collective_begin_ns_ = -1;
    CollectiveMemberRecord m{comm,         self_like ? process_ : -1, instance, process_, 0,
                             root_process, -1, begin_ns, last_ns_, sent, received};
    if (!stack_.empty()) {
      Frame& f = stack_.back();
      m.region = f.region;
      m.event = f.id;
      m.start_ns = f.start_ns;
      f.collective_member = static_cast<std::int64_t>(out_.collective_members.size());
    }
    out_.collective_members.push_back(m);
  }

  const ProcessLayout& layout_;
  ProcessIndex process_;
  EventId next_event_;
  EventId first_event_;
  const TickConverter& ticks_;
  DecodeTotals& totals_;
  LocationRecords& out_;
  EventRowBuffer& rows_;
  std::vector<Frame> stack_;
  RequestTable<size_t> open_isends_;
  RequestTable<PendingIrecv> open_irecvs_;
  std::unordered_map<std::uint32_t, std::uint64_t> collectives_on_comm_;
  std::uint32_t last_comm_ref_ = OTF2_UNDEFINED_COMM;
  const CommInfo* last_comm_ = nullptr;
  OTF2_TimeStamp last_ticks_ = 0;
  TimeNs last_ns_ = 0;
  TimeNs collective_begin_ns_ = -1;  // -1: no MpiCollectiveBegin pending
  bool failed_ = false;
  std::uint64_t bad_ticks_ = 0;
};

std::unique_ptr<OTF2_EvtReaderCallbacks, void (*)(OTF2_EvtReaderCallbacks*)>
LocationDecoder::callbacks() {
  std::unique_ptr<OTF2_EvtReaderCallbacks, void (*)(OTF2_EvtReaderCallbacks*)> cb(
      OTF2_EvtReaderCallbacks_New(), OTF2_EvtReaderCallbacks_Delete);
  OTF2_EvtReaderCallbacks_SetEnterCallback(cb.get(), on_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cb.get(), on_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb.get(), on_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb.get(), on_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb.get(), on_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb.get(), on_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb.get(), on_irecv);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb.get(), on_recv);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb.get(), on_collective_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb.get(), on_collective_end);
  return cb;
}

}  // namespace

LocationSummary decode_location(const Otf2Archive& archive, const ProcessLayout& layout,
                                ProcessIndex process, EventId first_event,
                                const TickConverter& ticks, DecodeTotals& totals,
                                LocationRecords& records, EventRowBuffer& rows,
                                const ChunkProgress& progress) {
  const ProcessInfo& info = layout.processes[static_cast<size_t>(process)];
  LocationDecoder decoder(layout, process, first_event, ticks, totals, records, rows);
  auto callbacks = LocationDecoder::callbacks();
  LocationSummary summary;
  summary.records = read_location_events(archive, info.location_ref, callbacks.get(), &decoder,
                                         [&](std::uint64_t done) {
                                           if (progress) progress(done);
                                           return !decoder.failed();
                                         });
  if (decoder.failed())
    throw Error(archive.location_file(info.location_ref, ".evt"),
                "timestamps go backwards in location " + std::to_string(info.location_ref) +
                    " (" + info.name + "): " + std::to_string(decoder.bad_ticks()) + " after " +
                    std::to_string(decoder.previous_ticks()));
  decoder.finish();
  totals.records += summary.records;
  summary.events = decoder.events();
  return summary;
}

}  // namespace weft::db
