// Corrupted-input corpus for the Projections importer, generated from a
// good synthetic AMPI run (`weft synth ampi --format projections`) whose PE
// logs are kept both gzip'd and as plain text (the importer reads either; in
// plain text a damaged byte reaches the record parser rather than zlib's
// CRC): truncations, byte flips, empty and missing files. Every case must
// keep the contract of corruption_support.h. Then the named failure modes of
// the issue, each with its exact message and exit status.
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "projections_test_support.h"

namespace {

namespace fs = std::filesystem;
using weft::test::CaseTally;
using weft::test::contract_violation;
using weft::test::ProcessResult;

const std::string kWeft = WEFT_BINARY;

class ProjectionsCorpus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new weft::test::TempDir("projcorpus");
    const std::vector<std::string> args = {"-n", "3", "-i", "3", "--vps", "6", "--migrate", "2:0@1"};
    weft::test::synth_projections(dir_->path / "gz", "ampi", args);
    weft::test::synth_projections(dir_->path / "plain", "ampi", args);
    weft::test::gunzip_logs(dir_->path / "plain");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  // Imports a copy of `source` with `overlay` applied and judges the result.
  void run_case(CaseTally& tally, const std::string& source, const std::string& name,
                const std::map<fs::path, std::optional<std::string>>& overlay) {
    if (!tally.sample()) return;
    const fs::path work = dir_->path / "work";
    fs::remove_all(work);
    fs::copy(dir_->path / source, work, fs::copy_options::recursive);
    for (const auto& [rel, bytes] : overlay) {
      if (bytes)
        weft::test::write_bytes(work / rel, *bytes);
      else
        fs::remove(work / rel);
    }
    const fs::path out = dir_->path / "out.weft";
    ProcessResult r = weft::test::run_process({kWeft, "import", "--quiet", (work / "ampi.sts").string(), "-o", out.string()});
    std::string violation = contract_violation(r, {work});
    if (violation.empty() && r.exit_code == 0) {
      ProcessResult c = weft::test::run_process({kWeft, "check", out.string()});
      if (!c.exited || (c.exit_code != 0 && c.exit_code != 1)) violation = "check of the imported run: " + c.describe();
    }
    if (violation.empty() && r.exit_code != 0 && fs::exists(out)) violation = "a failed import left an output";
    if (violation.empty() && weft::test::has_temp_files_below(dir_->path)) violation = "a temporary file was left behind";
    tally.record(source + ": " + name, violation, r);
    std::error_code ec;
    fs::remove(out, ec);
  }
  static std::string original(const std::string& source, const fs::path& rel) {
    return weft::test::read_bytes(dir_->path / source / rel);
  }

  static inline weft::test::TempDir* dir_ = nullptr;
};

struct Target {
  const char* source;
  const char* file;
  std::size_t truncations;
  std::size_t flip_stride;
};
const Target kTargets[] = {
    {"plain", "ampi.sts", 16, 31},    {"plain", "ampi.0.log", 24, 23}, {"plain", "ampi.2.log", 12, 53},
    {"gz", "ampi.1.log.gz", 16, 41},
};

TEST_F(ProjectionsCorpus, Truncations) {
  CaseTally tally("projections truncations");
  for (const Target& t : kTargets) {
    std::string bytes = original(t.source, t.file);
    for (std::size_t size : weft::test::spread_offsets(bytes.size(), t.truncations))
      run_case(tally, t.source, std::string(t.file) + " cut to " + std::to_string(size), {{t.file, bytes.substr(0, size)}});
  }
}

TEST_F(ProjectionsCorpus, ByteFlips) {
  CaseTally tally("projections byte flips");
  static const unsigned char kMasks[] = {0xff, 0x01, 0x80, 0x10, 0x7f};
  int k = 0;
  for (const Target& t : kTargets) {
    std::string bytes = original(t.source, t.file);
    for (std::size_t at = 0; at < bytes.size(); at += t.flip_stride) {
      std::string damaged = bytes;
      unsigned char mask = kMasks[k++ % std::size(kMasks)];
      damaged[at] = static_cast<char>(damaged[at] ^ mask);
      run_case(tally, t.source, std::string(t.file) + " byte " + std::to_string(at), {{t.file, damaged}});
    }
  }
}

TEST_F(ProjectionsCorpus, EmptyAndMissingFiles) {
  CaseTally tally("projections empty and missing files");
  for (const char* source : {"plain", "gz"})
    for (const fs::path& rel : weft::test::files_under(dir_->path / source)) {
      run_case(tally, source, rel.string() + " empty", {{rel, std::string()}});
      run_case(tally, source, rel.string() + " missing", {{rel, std::nullopt}});
    }
}

// ---- the named failure modes, with their messages ----

ProcessResult import_dir(const fs::path& dir, const fs::path& out) {
  return weft::test::run_process({kWeft, "import", "--quiet", (dir / "ampi.sts").string(), "-o", out.string()});
}

void expect_one_line_error(const ProcessResult& r, const std::string& file, const std::string& words) {
  EXPECT_TRUE(r.exited && r.exit_code == 2) << r.describe();
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("weft: " + file + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
}

class ProjectionsFailures : public ::testing::Test {
 protected:
  void SetUp() override {
    weft::test::synth_projections(dir_.path / "run", "ampi", {"-n", "2", "-i", "2", "--vps", "4"});
    weft::test::gunzip_logs(dir_.path / "run");
  }
  fs::path run() const { return dir_.path / "run"; }
  fs::path out() const { return dir_.path / "out.weft"; }
  weft::test::TempDir dir_{"projfail"};
};

TEST_F(ProjectionsFailures, MissingPeLog) {
  fs::remove(run() / "ampi.1.log");
  ProcessResult r = import_dir(run(), out());
  expect_one_line_error(r, (run() / "ampi.1.log.gz").string(), "missing PE log");
  EXPECT_FALSE(fs::exists(out()));
}

TEST_F(ProjectionsFailures, StsPromisesMorePesThanThereAreLogs) {
  std::string sts = weft::test::read_bytes(run() / "ampi.sts");
  sts.replace(sts.find("PROCESSORS 2"), 12, "PROCESSORS 3");
  weft::test::write_bytes(run() / "ampi.sts", sts);
  expect_one_line_error(import_dir(run(), out()), (run() / "ampi.2.log.gz").string(), "PROCESSORS 3");
}

TEST_F(ProjectionsFailures, LogNamesAnEntryTheStsDoesNotHave) {
  std::string sts = weft::test::read_bytes(run() / "ampi.sts");
  sts.replace(sts.find("TOTAL_EPS 9"), 11, "TOTAL_EPS 8");
  sts.erase(sts.find("ENTRY CHARE 8 "), sts.find('\n', sts.find("ENTRY CHARE 8 ")) - sts.find("ENTRY CHARE 8 ") + 1);
  weft::test::write_bytes(run() / "ampi.sts", sts);
  ProcessResult r = import_dir(run(), out());
  EXPECT_TRUE(r.exited && r.exit_code == 2) << r.describe();
  EXPECT_NE(r.err.find("is beyond TOTAL_EPS 8"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(".log: line "), std::string::npos) << r.err;
}

TEST_F(ProjectionsFailures, TruncatedRecord) {
  std::string log = weft::test::read_bytes(run() / "ampi.0.log");
  weft::test::write_bytes(run() / "ampi.0.log", log.substr(0, log.size() - 4));
  expect_one_line_error(import_dir(run(), out()), (run() / "ampi.0.log").string(), "line ");
}

TEST_F(ProjectionsFailures, GzipError) {
  weft::test::write_bytes(run() / "ampi.0.log", "");
  fs::remove(run() / "ampi.0.log");
  std::string gz = std::string("\x1f\x8b\x08\x00", 4) + std::string(40, 'x');
  weft::test::write_bytes(run() / "ampi.0.log.gz", gz);
  expect_one_line_error(import_dir(run(), out()), (run() / "ampi.0.log.gz").string(), "gzip error");
}

TEST_F(ProjectionsFailures, AbsurdCounts) {
  std::string sts = weft::test::read_bytes(run() / "ampi.sts");
  sts.replace(sts.find("TOTAL_CHARES 11"), 15, "TOTAL_CHARES 900000000000");
  weft::test::write_bytes(run() / "ampi.sts", sts);
  expect_one_line_error(import_dir(run(), out()), (run() / "ampi.sts").string(), "out of range");
}

TEST_F(ProjectionsFailures, UnknownRecordTypesAreCountedNotFatal) {
  std::string log = weft::test::read_bytes(run() / "ampi.1.log");
  const std::size_t second_line = log.find('\n') + 1;
  log.insert(second_line, "77 1 2 3\n250 9\n");
  weft::test::write_bytes(run() / "ampi.1.log", log);
  ProcessResult r = import_dir(run(), out());
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
  weft::db::Database db = weft::db::open_run(out().string());
  EXPECT_EQ(weft::test::meta_int(db, "count_unknown_records"), 2);
}

}  // namespace
