// Task-based structure benchmark (issue 7): generates a Jacobi-2D-like
// Charm++ trace in memory (charm/jacobi_task_trace.h), then times the logical
// structure of charm-logical-structure.txt §3 (with reordering) and the §4 /
// AMPI metrics, and prints events/s and the peak RSS of the process.
//
// usage: bench_charm_structure [NX NY PES ITERATIONS]   (default 256 256 4096 10: 64K chares)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "charm/jacobi_task_trace.h"
#include "charm/task_metrics.h"
#include "charm/task_structure.h"

using namespace weft::charm;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  JacobiShape shape{.nx = 256, .ny = 256, .pes = 4096, .iterations = 10};
  if (argc == 5) {
    shape.nx = std::atoi(argv[1]);
    shape.ny = std::atoi(argv[2]);
    shape.pes = std::atoi(argv[3]);
    shape.iterations = std::atoi(argv[4]);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: %s [NX NY PES ITERATIONS]\n", argv[0]);
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  const TaskTrace trace = jacobi_task_trace(shape);
  const double generate_s = seconds_since(t0);
  const long trace_rss = peak_rss_mb();
  for (bool reorder : {true, false}) {
    t0 = std::chrono::steady_clock::now();
    const TaskStructure s = analyze_task_structure(trace, {.reorder = reorder, .infer_dependencies = true});
    const double structure_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const auto sub = sub_block_durations(trace, s.index.block_first);
    std::vector<std::int32_t> step(sub.size());
    for (EventIndex e = 0; e < trace.event_count(); ++e) step[static_cast<std::size_t>(e)] = s.global_step(e);
    const auto diff = differential_durations(sub, s.phases.of_event, step);
    const auto imbalance = phase_imbalance(trace, sub, s.phases.of_event, s.phases.count);
    const auto idle = idle_experienced(trace, s.index.block_first);
    const auto util = pe_utilization(trace);
    const auto lambda = percent_imbalance(util.busy);
    const double metrics_s = seconds_since(t0);
    std::printf(
        "chares=%d pes=%d iterations=%d blocks=%d events=%d reorder=%d phases=%d global_steps=%lld "
        "structure_s=%.3f events_per_s=%.0f metrics_s=%.3f lambda=%.2f generate_s=%.3f trace_rss_mb=%ld "
        "peak_rss_mb=%ld\n",
        shape.nx * shape.ny, shape.pes, shape.iterations, trace.block_count(), trace.event_count(), reorder ? 1 : 0,
        s.phases.count, static_cast<long long>(s.report.global_steps), structure_s,
        static_cast<double>(trace.event_count()) / structure_s, metrics_s, lambda, generate_s, trace_rss,
        peak_rss_mb());
    (void)diff;
    (void)imbalance;
    (void)idle;
  }
  return 0;
}
