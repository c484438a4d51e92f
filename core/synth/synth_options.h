#pragma once
// What `weft synth` is asked to generate: a communication pattern, its size,
// and the perturbations (seeded jitter, injected delays) that make a trace
// with known ground truth interesting to analyze.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace weft::synth {

enum class Pattern : std::uint8_t {
  Stencil2d,            // 2D halo exchange (Irecv/Isend/Waitall) + world Allreduce
  Ring,                 // send right, receive from left (MPI_Send/MPI_Recv)
  AllreduceBinomial,    // point-to-point binomial reduce to 0 + binomial broadcast
  AllreduceCollective,  // MPI_Allreduce on world + MPI_Barrier on even/odd split
  MergeTree,            // pairwise merge: at level k, ranks with bit k set send and drop out
  AmgLike,              // halo with varying neighbours + Allreduce on world and on even/odd
  Pingpong,             // ranks 0 and 1 exchange; others compute only
};

// Pattern names as typed on the command line, in enum order.
inline constexpr std::string_view kPatternNames[] = {
    "stencil2d", "ring", "allreduce-binomial", "allreduce-collective",
    "merge-tree", "amg-like", "pingpong"};

inline constexpr std::int32_t kMaxProcs = 65536;

// `--delay RANK:ITER:FACTOR`: rank RANK's compute in iteration ITER lasts FACTOR times as long.
struct Delay {
  std::int32_t rank = 0;
  std::int32_t iteration = 0;
  double factor = 1.0;
};

struct SynthOptions {
  Pattern pattern = Pattern::Stencil2d;
  std::int32_t procs = 4;
  std::int32_t iterations = 1;
  std::uint64_t seed = 1;
  double jitter = 0.0;  // compute durations vary by up to ±jitter (a fraction, 0..1)
  std::vector<Delay> delays;
};

// Throws weft::Error naming the valid patterns when `name` is not one of them.
Pattern parse_pattern(std::string_view name);
std::string_view pattern_name(Pattern pattern);
// The smallest process count the pattern makes sense for (1 or 2).
std::int32_t min_procs(Pattern pattern);
// Parses "RANK:ITER:FACTOR"; throws weft::Error for anything else.
Delay parse_delay(std::string_view text);
// Throws weft::Error (one line) for out-of-range sizes, jitter or delays.
void validate(const SynthOptions& options);

}  // namespace weft::synth
