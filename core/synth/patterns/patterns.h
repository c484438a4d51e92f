#pragma once
// One simulation kernel per pattern: simulates iteration `iteration` of every
// rank, starting from ctx.clock, and records the emitted ranks' events.
// Each pattern's file states, at its top, the exact counts of messages,
// collectives, region instances and OTF2 event records for n ranks and i
// iterations (tests/test_synth.cpp checks them against otf2-print).
//
// Every rank's stream is Enter(main) · iterations · Leave(main), so each
// total below includes 2n records and n region instances for `main`.
#include <cstdint>

#include "synth/sim_context.h"

namespace weft::synth {

void simulate_stencil2d_iteration(SimContext& ctx, std::int32_t iteration);
void simulate_ring_iteration(SimContext& ctx, std::int32_t iteration);
void simulate_pingpong_iteration(SimContext& ctx, std::int32_t iteration);
void simulate_allreduce_binomial_iteration(SimContext& ctx, std::int32_t iteration);
void simulate_merge_tree_iteration(SimContext& ctx, std::int32_t iteration);
void simulate_allreduce_collective_iteration(SimContext& ctx, std::int32_t iteration);
void simulate_amg_like_iteration(SimContext& ctx, std::int32_t iteration);

}  // namespace weft::synth
