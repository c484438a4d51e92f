// The real Projections runs in ../shared/traces (README.md there): each
// imports with the record and creation counts the README states and passes
// `weft check`. Skipped with a message when the folder is absent.
#include <gtest/gtest.h>

#include "projections_test_support.h"

namespace {

namespace fs = std::filesystem;

struct RealRun {
  const char* sts;  // relative to traces/
  std::int64_t pes;
  std::int64_t records;    // README "events": every log line but the headers
  std::int64_t creations;  // README "sends": records of type 1
};

// synth-projections-v7 is not in the README's table; its counts are the
// files' own: 97 + 84 + 74 + 70 record lines, 11 creations on each PE.
const RealRun kRuns[] = {
    {"ping-pong-projections/pingpong.prj.sts", 2, 1932, 145},
    {"hello-1darray-projections/hello.sts", 2, 151, 11},
    {"synth-projections-v7/main.sts", 4, 325, 44},
};

class RealProjections : public ::testing::TestWithParam<RealRun> {};

TEST_P(RealProjections, ImportsWithTheReadmeCountsAndPassesCheck) {
  const RealRun& run = GetParam();
  const fs::path sts = fs::path(WEFT_SHARED_DIR) / "traces" / run.sts;
  if (!fs::exists(sts)) GTEST_SKIP() << sts << " is absent (the shared traces folder is not mounted)";
  weft::test::TempDir dir("proj-real");
  const fs::path out = dir.path / "run.weft";
  weft::test::import_run(sts, out);
  {
    weft::db::Database db = weft::db::open_run(out.string());
    EXPECT_EQ(weft::test::meta_int(db, "count_pes"), run.pes);
    EXPECT_EQ(weft::test::meta_int(db, "count_records"), run.records);
    EXPECT_EQ(weft::test::meta_int(db, "count_creation_records"), run.creations);
    EXPECT_EQ(weft::test::meta_int(db, "count_unknown_records"), 0);
    EXPECT_EQ(db.query_int("SELECT count(*) FROM processes"), run.pes);
    EXPECT_EQ(db.query_int("SELECT count(*) FROM executions"), weft::test::meta_int(db, "count_executions"));
    EXPECT_GT(weft::test::meta_int(db, "count_messages"), 0);
    // Charm++'s own chares are runtime, the programs' main chares are not.
    EXPECT_EQ(db.query_int("SELECT count(*) FROM chares c JOIN chare_types t USING(chare_type) "
                           "WHERE t.name IN ('CkReductionMgr', 'CkArray', 'CkLocMgr') AND c.runtime = 0"), 0);
    EXPECT_EQ(db.query_int("SELECT count(*) FROM chares c JOIN chare_types t USING(chare_type) "
                           "WHERE t.name = 'Main' AND c.runtime = 1"), 0);
  }
  weft::test::ProcessResult check = weft::test::run_process({WEFT_BINARY, "check", out.string()});
  EXPECT_TRUE(check.exited && check.exit_code == 0) << check.describe() << check.out;
  weft::test::ProcessResult info = weft::test::run_process({WEFT_BINARY, "info", out.string()});
  EXPECT_TRUE(info.exited && info.exit_code == 0) << info.describe();
  weft::test::ProcessResult exp =
      weft::test::run_process({WEFT_BINARY, "export", out.string(), "--what", "messages"});
  EXPECT_TRUE(exp.exited && exp.exit_code == 0) << exp.describe();
}

TEST(RealProjectionsDetail, HelloArrayElementsHaveTheirIndex) {
  const fs::path sts = fs::path(WEFT_SHARED_DIR) / "traces/hello-1darray-projections/hello.sts";
  if (!fs::exists(sts)) GTEST_SKIP() << sts << " is absent";
  weft::test::TempDir dir("proj-hello");
  weft::test::import_run(sts, dir.path / "run.weft", {"--no-analyze"});
  weft::db::Database db = weft::db::open_run((dir.path / "run.weft").string());
  // hello.0.log: Hello() runs for elements 0, 1, 2 (1-D index) on PE 0.
  EXPECT_EQ(db.query_int("SELECT count(*) FROM chares WHERE name IN ('Hello[0]', 'Hello[1]', 'Hello[2]') "
                         "AND idx0 IS NOT NULL AND idx1 IS NULL AND runtime = 0"), 3);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM regions WHERE name = 'Hello::SayHi(int hiNo)' AND paradigm = 'charm'"), 1);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM regions WHERE role = 'idle'"), 1);
}

INSTANTIATE_TEST_SUITE_P(Traces, RealProjections, ::testing::ValuesIn(kRuns),
                         [](const ::testing::TestParamInfo<RealRun>& i) {
                           std::string n = fs::path(i.param.sts).parent_path().string();
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
