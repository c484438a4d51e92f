// Deterministic mutation fuzz loop for the trace importers. Each iteration
// takes a good seed input of a target, stacks 1–4 random byte mutations
// (corruption_support.h: mutate_once) on one or two of its files, runs the
// importer as a child process and checks the CLI contract. Iteration i of
// seed S is the same case on every machine, so a failure reproduces from its
// two numbers; failing cases are also copied to $WEFT_FUZZ_FAILURES.
//
//   make test   a brief loop (WEFT_FUZZ_ITERATIONS unset: 60 per target)
//   make fuzz   FUZZ_ITERATIONS=3000 FUZZ_SEED=1 by default
//
// A target is one importer: its seed inputs and its command line. The
// Projections target's seeds come from its synthetic writer, with the PE logs
// as plain text (so mutations reach the record parser, not zlib's CRC check)
// or gzip'd; its command is `weft import RUN.sts`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <memory>

#include "corruption_support.h"
#include "import_test_support.h"
#include "projections_test_support.h"

namespace {

namespace fs = std::filesystem;
using weft::test::ProcessResult;

const std::string kWeft = WEFT_BINARY;

// One good input: a directory and the files in it a mutation may touch.
struct SeedInput {
  fs::path dir;
  std::vector<fs::path> files;  // relative to dir
};

struct FuzzTarget {
  std::string name;
  // Writes the good inputs under `work` (called once).
  std::function<std::vector<SeedInput>(const fs::path& work)> make_seeds;
  // The command that imports `input` (a copy of a seed's dir) into `output`.
  std::function<std::vector<std::string>(const fs::path& input, const fs::path& output)> command;
};

SeedInput synth_seed(const fs::path& dir, std::vector<std::string> args) {
  for (const fs::path& out : {dir, fs::path(dir.string() + "-again")}) {
    std::vector<std::string> argv = {kWeft, "synth"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"-o", out.string()});
    ProcessResult r = weft::test::run_process(argv);
    EXPECT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  }
  weft::test::pin_trace_id(dir / "traces.otf2", dir.string() + "-again/traces.otf2");
  fs::remove_all(dir.string() + "-again");
  return {dir, weft::test::files_under(dir)};
}

FuzzTarget otf2_target() {
  FuzzTarget t;
  t.name = "otf2";
  t.make_seeds = [](const fs::path& work) {
    return std::vector<SeedInput>{
        synth_seed(work / "stencil", {"stencil2d", "-n", "4", "-i", "2"}),
        synth_seed(work / "amg", {"amg-like", "-n", "3", "-i", "2"}),
        synth_seed(work / "coll", {"allreduce-collective", "-n", "2", "-i", "2"}),
        synth_seed(work / "pingpong", {"pingpong", "-n", "2", "-i", "3"}),
    };
  };
  t.command = [](const fs::path& input, const fs::path& output) {
    return std::vector<std::string>{kWeft, "import", "--quiet", (input / "traces.otf2").string(), "-o",
                                    output.string()};
  };
  return t;
}

SeedInput projections_seed(const fs::path& dir, const std::string& pattern, std::vector<std::string> args,
                           bool plain) {
  weft::test::synth_projections(dir, pattern, args);
  if (plain) weft::test::gunzip_logs(dir);
  return {dir, weft::test::files_under(dir)};
}

FuzzTarget projections_target() {
  FuzzTarget t;
  t.name = "projections";
  t.make_seeds = [](const fs::path& work) {
    return std::vector<SeedInput>{
        projections_seed(work / "jacobi", "jacobi2d", {"-n", "2", "-i", "2", "--chares-per-pe", "2"}, true),
        projections_seed(work / "ampi", "ampi", {"-n", "2", "-i", "3", "--vps", "4", "--migrate", "1:1@1"}, true),
        projections_seed(work / "tree-gz", "reduction-tree", {"-n", "3", "-i", "2"}, false),
    };
  };
  t.command = [](const fs::path& input, const fs::path& output) {
    fs::path sts;
    for (const auto& e : fs::directory_iterator(input))
      if (e.path().extension() == ".sts") sts = e.path();
    return std::vector<std::string>{kWeft, "import", "--quiet", sts.string(), "-o", output.string()};
  };
  return t;
}

std::vector<FuzzTarget> all_targets() { return {otf2_target(), projections_target()}; }

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

void run_fuzz_loop(const FuzzTarget& target) {
  const std::uint64_t iterations = env_number("WEFT_FUZZ_ITERATIONS", 60);
  const std::uint64_t seed = env_number("WEFT_FUZZ_SEED", 1);
  const std::uint64_t first = env_number("WEFT_FUZZ_FIRST", 0);  // replay from this iteration
  const char* keep = std::getenv("WEFT_FUZZ_FAILURES");
  weft::test::TempDir dir("fuzz-" + target.name);
  const std::vector<SeedInput> seeds = target.make_seeds(dir.path / "seeds");
  ASSERT_FALSE(seeds.empty());
  weft::test::CaseTally tally("fuzz " + target.name + " (seed " + std::to_string(seed) + ")");
  for (std::uint64_t i = first; i < first + iterations; ++i) {
    weft::test::Prng rng(seed * 0x100000001B3ull + i);
    const SeedInput& s = seeds[rng.below(seeds.size())];
    fs::path input = dir.path / "case";
    fs::path output = dir.path / "out.weft";
    fs::remove_all(input);
    fs::copy(s.dir, input, fs::copy_options::recursive);
    std::string what;
    for (std::uint64_t f = 0, nfiles = 1 + rng.below(2); f < nfiles; ++f) {
      const fs::path& rel = s.files[rng.below(s.files.size())];
      std::string bytes = weft::test::read_bytes(input / rel);
      std::uint64_t stacked = 1 + rng.below(4);
      for (std::uint64_t m = 0; m < stacked; ++m) weft::test::mutate_once(bytes, rng);
      weft::test::write_bytes(input / rel, bytes);
      what += " " + rel.string() + "×" + std::to_string(stacked);
    }
    ProcessResult r = weft::test::run_process(target.command(input, output));
    std::string violation = weft::test::contract_violation(r, {dir.path});
    if (violation.empty() && r.exit_code != 0 && fs::exists(output)) violation = "a failed import left an output";
    if (violation.empty() && weft::test::has_temp_files_below(dir.path)) violation = "a temporary file was left behind";
    std::string name = "iteration " + std::to_string(i) + " (" + s.dir.filename().string() + ":" + what + ")";
    if (!violation.empty() && keep) {
      fs::path saved = fs::path(keep) / (target.name + "-seed" + std::to_string(seed) + "-" + std::to_string(i));
      fs::create_directories(saved.parent_path());
      fs::remove_all(saved);
      fs::copy(input, saved, fs::copy_options::recursive);
    }
    tally.record(name, violation, r);
    std::error_code ec;
    fs::remove(output, ec);
  }
}

TEST(FuzzImport, MutatedInputsKeepTheContract) {
  for (const FuzzTarget& target : all_targets()) {
    SCOPED_TRACE(target.name);
    run_fuzz_loop(target);
  }
}

}  // namespace
