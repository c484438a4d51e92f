#pragma once
// The input of the task-based logical structure analysis
// (charm-logical-structure.txt §3) and of the Charm++ metrics (§4,
// ampi-projections.txt): plain structure-of-arrays with integer indices, as
// the Projections importer stores it. No I/O here; the loader fills it.
//
// Vocabulary:
//  - a *serial block* is one entry-method execution (Projections begin/end
//    processing): it runs on one PE for one chare without interruption;
//  - a *dependency event* is an instant inside a block: a *source* is the
//    creation of a message (an entry-method invocation, Projections
//    CREATION), a *sink* is the start of the execution that message triggers
//    (so its time is that block's begin and it is the block's first event).
//
// Invariants (checked by validate_task_trace):
//  - blocks are sorted by (pe, start_ns); block_* arrays have one entry per block;
//  - events are sorted by (block, time) and event_* arrays have one entry per event;
//  - a sink's partner is a source event (or kNone when the creation was not
//    traced); a block has at most one sink and it is its first event.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/types.h"

namespace weft::charm {

using ChareIndex = std::int32_t;
using BlockIndex = std::int32_t;
using EventIndex = std::int32_t;
using EntryIndex = std::int32_t;
using PeIndex = std::int32_t;
constexpr std::int32_t kNone = -1;

enum class DepKind : std::uint8_t { Source = 0, Sink = 1 };

struct TaskTrace {
  std::int32_t pe_count = 0;

  // Per chare: 1 for a Charm++ runtime/system chare (CkReductionMgr, the
  // location manager, ...), 0 for an application chare. Runtime chares are
  // grouped by PE in the logical view and kept in runtime partitions (§3.1).
  std::vector<std::uint8_t> chare_runtime;

  // Per entry method: its name as in the .sts file. SDAG serial blocks are
  // named "_serial_N" ("_atomic_N" in older Charm++) with their parse-order
  // number N, which sdag_serial_number() extracts (§2.1). ("_sdag_fnc_NAME" is
  // charmxi's body of an SDAG entry method NAME, not a numbered serial.)
  std::vector<std::string> entry_name;

  // Per serial block (entry-method execution), sorted by (pe, start_ns).
  std::vector<ChareIndex> block_chare;
  std::vector<PeIndex> block_pe;
  std::vector<EntryIndex> block_entry;
  std::vector<TimeNs> block_start;
  std::vector<TimeNs> block_end;
  std::vector<EventId> block_event_id;  // the execution's event id in the store

  // Per dependency event, sorted by (block, time).
  std::vector<BlockIndex> event_block;
  std::vector<TimeNs> event_time;
  std::vector<DepKind> event_kind;
  // For a sink: the source event that created its message (kNone when not
  // traced). For a source: one sink it triggered or kNone; several sinks may
  // name the same source (broadcasts), so the analysis reads sink -> source only.
  std::vector<EventIndex> event_partner;

  // Per idle interval (Projections BEGIN_IDLE..END_IDLE), any order.
  std::vector<PeIndex> idle_pe;
  std::vector<TimeNs> idle_start;
  std::vector<TimeNs> idle_end;

  // Times of the load-balancing steps (AMPI_Migrate / LB barriers), sorted;
  // empty when the run did not balance. Percent imbalance is reported for
  // the whole run and for each interval between them.
  std::vector<TimeNs> lb_step_time;

  std::int32_t chare_count() const { return static_cast<std::int32_t>(chare_runtime.size()); }
  std::int32_t block_count() const { return static_cast<std::int32_t>(block_chare.size()); }
  std::int32_t event_count() const { return static_cast<std::int32_t>(event_block.size()); }
  std::int32_t idle_count() const { return static_cast<std::int32_t>(idle_pe.size()); }
  bool is_source(EventIndex e) const { return event_kind[static_cast<std::size_t>(e)] == DepKind::Source; }
  bool is_sink(EventIndex e) const { return event_kind[static_cast<std::size_t>(e)] == DepKind::Sink; }
  ChareIndex chare_of_event(EventIndex e) const {
    return block_chare[static_cast<std::size_t>(event_block[static_cast<std::size_t>(e)])];
  }
  PeIndex pe_of_event(EventIndex e) const {
    return block_pe[static_cast<std::size_t>(event_block[static_cast<std::size_t>(e)])];
  }
};

// Throws weft::Error naming the first broken invariant.
void validate_task_trace(const TaskTrace& trace);

// CSR over blocks: events of block b are [first[b], first[b + 1]).
std::vector<EventIndex> index_block_events(const TaskTrace& trace);

// The N of an SDAG serial entry name ("_serial_3", "_atomic_3", either with
// a signature such as "(void)" appended), or -1 when the name is not one.
std::int32_t sdag_serial_number(const std::string& entry_name);

}  // namespace weft::charm
