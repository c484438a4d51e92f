#include "synth/simulator.h"

#include <algorithm>
#include <utility>

#include "synth/patterns/patterns.h"
#include "synth/sim_context.h"

namespace weft::synth {
namespace {

using IterationKernel = void (*)(SimContext&, std::int32_t);

IterationKernel kernel_for(Pattern pattern) {
  switch (pattern) {
    case Pattern::Stencil2d: return simulate_stencil2d_iteration;
    case Pattern::Ring: return simulate_ring_iteration;
    case Pattern::AllreduceBinomial: return simulate_allreduce_binomial_iteration;
    case Pattern::AllreduceCollective: return simulate_allreduce_collective_iteration;
    case Pattern::MergeTree: return simulate_merge_tree_iteration;
    case Pattern::AmgLike: return simulate_amg_like_iteration;
    case Pattern::Pingpong: return simulate_pingpong_iteration;
  }
  return simulate_stencil2d_iteration;
}

// Hands the buffered records over and empties the buffer, keeping its
// capacity so that steady-state iterations allocate nothing.
std::uint64_t hand_over(SimContext& ctx, RecordSink& sink) {
  const std::uint64_t count = ctx.records.size();
  if (count > 0) sink.consume(ctx.records);
  ctx.records.clear();
  return count;
}

}  // namespace

Simulator::Simulator(SynthOptions options) : options_(std::move(options)) {
  validate(options_);
  comms_ = comm_layout(options_);
}

SimulationSummary Simulator::run(std::int32_t first_rank, std::int32_t end_rank,
                                 RecordSink& sink) const {
  SimContext ctx(options_, comms_);
  ctx.set_emit_range(std::max(0, first_rank), std::min(end_rank, options_.procs));
  const IterationKernel simulate_iteration = kernel_for(options_.pattern);
  SimulationSummary summary;

  for (std::int32_t r = 0; r < options_.procs; ++r) {
    ctx.enter(r, 0, Region::Main);
    ctx.clock[static_cast<std::size_t>(r)] = kStartupNs;
  }
  for (std::int32_t it = 0; it < options_.iterations; ++it) {
    simulate_iteration(ctx, it);
    summary.records += hand_over(ctx, sink);
  }
  for (std::int32_t r = 0; r < options_.procs; ++r) {
    const TimeNs end = ctx.clock[static_cast<std::size_t>(r)] + kShutdownNs;
    ctx.leave(r, end, Region::Main);
    summary.trace_end_ns = std::max(summary.trace_end_ns, end);
  }
  summary.records += hand_over(ctx, sink);
  return summary;
}

}  // namespace weft::synth
