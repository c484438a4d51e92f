// `weft synth PATTERN -n PROCS -i ITERATIONS ... -o DIR`: writes a synthetic
// OTF2 archive with known ground truth (see core/synth/ and
// db/otf2/otf2_synth_writer.h).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
#include "common/error.h"
#include "otf2/otf2_synth_writer.h"
#include "projections/projections_writer.h"
#include "synth/charm/charm_sim.h"
#include "synth/synth_options.h"

namespace weft::app {
namespace {

struct SynthArguments {
  std::string pattern;
  std::int64_t procs = 0;
  std::int64_t iterations = 0;
  std::uint64_t seed = 1;
  double jitter = 0.0;
  std::vector<std::string> delays;
  std::string out_dir;
  bool force = false;
  std::string format = "otf2";
  std::int64_t chares_per_pe = 1;
  std::int64_t vps = 0;
  std::vector<std::string> migrations;
};

// CLI11 parses into 64 bits so that, e.g., -n 5000000000 gets weft's own
// range message rather than a conversion error.
std::int32_t checked_count(std::int64_t value, const char* flag, std::int64_t min, std::int64_t max) {
  if (value < min || value > max)
    throw Error(std::string(flag) + " " + std::to_string(value) + " is out of range (" +
                std::to_string(min) + ".." + std::to_string(max) + ")");
  return static_cast<std::int32_t>(value);
}

// `--format projections`: a Charm++ run (core/synth/charm/charm_sim.h).
void run_projections_synth(const SynthArguments& args) {
  synth::CharmSynthOptions options;
  options.pattern = synth::parse_charm_pattern(args.pattern);
  options.pes = checked_count(args.procs, "-n", 1, synth::kMaxProcs);
  options.iterations = checked_count(args.iterations, "-i", 1, 1000000);
  options.chares_per_pe = checked_count(args.chares_per_pe, "--chares-per-pe", 1, 4096);
  options.vps = checked_count(args.vps, "--vps", 0, 1 << 24);
  options.seed = args.seed;
  options.jitter = args.jitter;
  for (const std::string& delay : args.delays) options.delays.push_back(synth::parse_delay(delay));
  for (const std::string& m : args.migrations) options.migrations.push_back(synth::parse_migrate(m));
  const db::ProjectionsSynthInfo info = db::write_projections_run(options, args.out_dir, args.force);
  std::printf("wrote %llu log records on %d PEs: %lld entry executions, %lld messages (%.6f s of trace)\n%s\n",
              static_cast<unsigned long long>(info.records), options.pes, static_cast<long long>(info.executions),
              static_cast<long long>(info.messages), static_cast<double>(info.end_us) * 1e-6, info.sts_path.c_str());
}

void run_synth(const SynthArguments& args) {
  if (args.format == "projections") return run_projections_synth(args);
  if (args.chares_per_pe != 1 || args.vps != 0 || !args.migrations.empty())
    throw Error("--chares-per-pe, --vps and --migrate need --format projections");
  synth::SynthOptions options;
  options.pattern = synth::parse_pattern(args.pattern);
  options.procs = checked_count(args.procs, "-n", 1, synth::kMaxProcs);
  options.iterations = checked_count(args.iterations, "-i", 1, INT32_MAX);
  options.seed = args.seed;
  options.jitter = args.jitter;
  for (const std::string& delay : args.delays) options.delays.push_back(synth::parse_delay(delay));

  const db::SynthArchiveInfo info = db::write_synth_archive(options, args.out_dir, args.force);
  std::printf("wrote %llu event records on %d locations (%.6f s of trace)\n%s\n",
              static_cast<unsigned long long>(info.records), options.procs,
              static_cast<double>(info.trace_end_ns) * 1e-9, info.anchor_path.c_str());
}

}  // namespace

void add_synth_command(CLI::App& app) {
  auto args = std::make_shared<SynthArguments>();
  CLI::App* cmd = app.add_subcommand(
      "synth",
      "Write a synthetic OTF2 archive (DIR/traces.otf2) or Charm++ Projections run (DIR/PATTERN.sts) with known "
      "ground truth");
  cmd->add_option("pattern", args->pattern,
                  "stencil2d, ring, allreduce-binomial, allreduce-collective, merge-tree, "
                  "amg-like or pingpong; with --format projections: jacobi2d, reduction-tree or ampi")
      ->required();
  cmd->add_option("-n,--procs", args->procs, "number of MPI ranks, or of PEs with --format projections (1..65536)")
      ->required();
  cmd->add_option("-i,--iterations", args->iterations, "iterations of the pattern")->required();
  cmd->add_option("--seed", args->seed, "seed of the compute-time jitter")->capture_default_str();
  cmd->add_option("--delay", args->delays,
                  "RANK:ITER:FACTOR: multiply RANK's compute in iteration ITER by FACTOR "
                  "(repeatable); with --format projections CHARE:ITER:FACTOR (the array element's "
                  "flat index, or the virtual rank)");
  cmd->add_option("--jitter", args->jitter,
                  "compute times vary uniformly by up to ±FRACTION (0..1)")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->out_dir, "output directory")->required();
  cmd->add_flag("--force", args->force, "replace an existing archive in the output directory");
  cmd->add_option("--format", args->format, "otf2 or projections")
      ->check(CLI::IsMember({"otf2", "projections"}))
      ->capture_default_str();
  cmd->add_option("--chares-per-pe", args->chares_per_pe,
                  "projections jacobi2d / reduction-tree: array elements per PE (overdecomposition)")
      ->capture_default_str();
  cmd->add_option("--vps", args->vps, "projections ampi: virtual ranks (default: one per PE)");
  cmd->add_option("--migrate", args->migrations,
                  "projections ampi: VP:PE@ITER moves rank VP to PE at the end of iteration ITER (AMPI_Migrate; "
                  "repeatable)");
  cmd->callback([args] { run_synth(*args); });
}

}  // namespace weft::app
