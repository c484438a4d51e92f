#pragma once
// Synthetic Charm++ runs with known answers (`weft synth --format
// projections`): a discrete-event simulation of message-driven PEs that
// yields, per PE, the records Charm++'s Projections tracing would log. No
// I/O: db/projections/projections_writer.h turns a CharmRun into PROG.sts
// and PROG.N.log.gz.
//
// The machine: each PE runs one entry method at a time, in message arrival
// order; a message takes 1 µs to a chare on the same PE and 5 µs to another
// PE; each creation costs 1 µs of its execution. Times are integer µs.
//
// Patterns (C = PEs × chares-per-pe array elements, block-mapped to PEs;
// I iterations). The counts below are what the tests assert:
//  jacobi2d: a periodic X×Y grid of Jacobi chares (X×Y = C, X the largest
//    divisor ≤ √C). Main::Main broadcasts begin_iteration; each element
//    sends recvGhost to its 4 neighbours, computes on the 4th ghost, and
//    contributes to the CkReductionMgr of its PE (a message); each manager,
//    once its K contributions and its children's partials are in, sends
//    RecvMsg to its parent PE (binary tree over PEs); the root broadcasts the
//    next begin_iteration, or sends Main::done after the last iteration.
//      executions = 6·I·C + I·(P−1) + 2;  messages = 6·I·C + I·(P−1) + 1
//  reduction-tree: Worker elements form a binary tree (children 2c+1, 2c+2);
//    Main broadcasts start; each worker computes, then sends recvPartial to
//    its parent once its children's partials are in; worker 0 sends
//    Main::iterationDone, which broadcasts the next start.
//      executions = 2·I·C + 1;  messages = 2·I·C
//  ampi: N virtual ranks (ampi array elements) on P PEs (rank v on PE
//    v·P/N). Main broadcasts ampi::run; in each iteration a rank computes,
//    then (before the last iteration) sends to both ring neighbours inside
//    AMPI_Send brackets; each arriving message runs ampi::generic with an
//    AMPI_Recv bracket, the second of an iteration computing and sending on.
//    At a load-balancing iteration (one named by --migrate) every rank calls
//    AMPI_Migrate at its end; the ranks named move to their new PE when it
//    returns, and run there from then on.
//      executions = 1 + N + 2·N·(I−1);  messages = N + 2·N·(I−1)
// The brackets carry the virtual rank as their nested id.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "synth/synth_options.h"

namespace weft::synth {

enum class CharmPattern : std::uint8_t { Jacobi2d, ReductionTree, Ampi };

// `--migrate VP:PE@ITER`
struct MigrateOption {
  std::int32_t vp = 0;
  std::int32_t pe = 0;
  std::int32_t iteration = 0;
};

struct CharmSynthOptions {
  CharmPattern pattern = CharmPattern::Jacobi2d;
  std::int32_t pes = 4;
  std::int32_t iterations = 1;
  std::int32_t chares_per_pe = 1;  // jacobi2d, reduction-tree
  std::int32_t vps = 0;            // ampi: virtual ranks (0: one per PE)
  std::uint64_t seed = 1;
  double jitter = 0.0;
  std::vector<Delay> delays;  // CHARE:ITER:FACTOR (rank = the chare's array index, or the vp)
  std::vector<MigrateOption> migrations;
};

CharmPattern parse_charm_pattern(std::string_view name);
std::string_view charm_pattern_name(CharmPattern pattern);
// "VP:PE@ITER"; throws weft::Error for anything else.
MigrateOption parse_migrate(std::string_view text);
// Throws weft::Error (one line) for sizes out of range or options that do not fit.
void validate(const CharmSynthOptions& options);

// Projections record types the simulation emits (the log_reader.h codes).
enum SimRecordType : std::uint8_t {
  kSimCreation = 1,
  kSimBeginProcessing = 2,
  kSimEndProcessing = 3,
  kSimBeginComputation = 6,
  kSimEndComputation = 7,
  kSimBeginIdle = 14,
  kSimEndIdle = 15,
  kSimCreationBcast = 20,
  kSimBeginUserPair = 98,
  kSimEndUserPair = 99,
};

// One log record. Field use by type:
//  creation / bcast: entry, event (sequence number on this PE), bytes; a = destination PEs (bcast)
//  begin/end processing: entry, event and pe of the creation (-1: none), bytes;
//    a, b = array index (index_count fields)
//  user pair: entry = user event id, event, b = virtual rank
struct SimRecord {
  std::int64_t time_us;
  std::int32_t entry;
  std::int32_t event;
  std::int32_t pe;
  std::int32_t bytes;
  std::int32_t a;
  std::int32_t b;
  std::uint8_t type;
  std::uint8_t index_count;
};

struct CharmChareType {
  std::string name;
  int dimensions;  // -1 for groups and singleton chares
};
struct CharmEntry {
  std::string name;
  int chare_type;
};
struct CharmUserEvent {
  int id;
  std::string name;
};

struct CharmRun {
  std::vector<CharmChareType> chare_types;
  std::vector<CharmEntry> entries;
  std::vector<CharmUserEvent> user_events;
  std::vector<std::vector<SimRecord>> pe_records;  // by PE, in time order
  std::int64_t end_us = 0;
  // Ground truth for the tests and the summary line.
  std::int64_t executions = 0;
  std::int64_t messages = 0;  // creation → execution pairs
  std::int64_t chares = 0;    // application array elements
};

CharmRun simulate_charm(const CharmSynthOptions& options);

}  // namespace weft::synth
