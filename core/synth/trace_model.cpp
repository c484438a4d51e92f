#include "synth/trace_model.h"

namespace weft::synth {

Grid stencil_grid(std::int32_t procs) {
  Grid grid;
  for (std::int32_t px = 1; static_cast<std::int64_t>(px) * px <= procs; ++px)
    if (procs % px == 0) grid.px = px;
  grid.py = procs / grid.px;
  return grid;
}

CommLayout comm_layout(const SynthOptions& options) {
  CommLayout layout;
  const std::int32_t n = options.procs;
  if (options.pattern == Pattern::Stencil2d) {
    const Grid grid = stencil_grid(n);
    for (std::int32_t row = 0; row < grid.py; ++row)
      layout.subs.push_back(
          {"MPI_COMM_SPLIT row " + std::to_string(row), row * grid.px, 1, grid.px});
    return layout;
  }
  layout.subs.push_back({"MPI_COMM_SPLIT even", 0, 2, (n + 1) / 2});
  if (n >= 2) layout.subs.push_back({"MPI_COMM_SPLIT odd", 1, 2, n / 2});
  return layout;
}

}  // namespace weft::synth
