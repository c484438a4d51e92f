// Every real OTF2 trace in ../shared/traces imports with exactly the record
// count otf2-print reports, and with the sends / collectives the README documents.
#include <gtest/gtest.h>

#include <string>

#include "import_test_support.h"
#include "otf2/otf2_decode_only.h"
#include "otf2/otf2_importer.h"
#include "store/event_buckets.h"
#include "store/run_info.h"
#include "store/schema.h"

namespace {

using weft::test::fs::path;

const std::string kTraces = WEFT_SHARED_DIR "/traces";

struct TraceFacts {
  const char* folder;
  std::int64_t locations;
  std::int64_t records;      // README "events": every OTF2 event record
  std::int64_t sends;        // MPI_SEND + MPI_ISEND records
  std::int64_t collectives;  // MPI_COLLECTIVE_END records = collective_members rows
};

constexpr TraceFacts kFacts[] = {
    {"ping-pong-otf2", 2, 120, 16, 0},        {"ping-pong-otf2-papi", 2, 204, 16, 0},
    {"mpi-tags-10", 10, 428, 18, 0},          {"mpi-coverage-10", 10, 22180, 1440, 1200},
    {"jacobi-cpu-2", 10, 300816, 2000, 2004}, {"cuda-simple-2", 6, 2816, 20, 24},
    {"cloverleaf-cuda-2", 6, 137954, 302, 208}, {"xeonphi-jacobi-1", 4, 11770, 0, 102},
    {"opencl-rma-1", 2, 48, 0, 0},            {"hip-two-gpu-1", 32, 72670, 0, 0},
};

bool have_traces() { return weft::test::fs::exists(kTraces + "/README.md"); }

// Event records as otf2-print lists them: every line after the header rule
// except the ADDITIONAL ATTRIBUTES continuation lines. -1 if otf2-print is missing.
std::int64_t otf2_print_record_count(const std::string& anchor) {
  auto r = weft::test::run_command(
      "command -v otf2-print >/dev/null || exit 99; otf2-print '" + anchor +
      "' | awk 'f && NF && $1 !~ /^ADDITIONAL/ {c++} /^-----/ {f=1} END {print c+0}'");
  if (r.exit_code != 0) return -1;
  return std::stoll(r.output);
}

class RealTrace : public ::testing::TestWithParam<TraceFacts> {};

TEST_P(RealTrace, ImportsWithExactCounts) {
  if (!have_traces()) GTEST_SKIP() << kTraces << " is absent: no real traces to import";
  const TraceFacts& facts = GetParam();
  std::string anchor = kTraces + "/" + facts.folder + "/traces.otf2";
  weft::test::TempDir dir("import");
  weft::db::ImportOptions options;
  options.trace_path = anchor;
  options.output_path = (dir.path / "run.weft").string();
  std::uint64_t progress_calls = 0;
  options.progress = [&](const weft::db::ImportProgress&) { ++progress_calls; };
  weft::db::ImportSummary summary = weft::db::import_otf2(options);

  EXPECT_EQ(static_cast<std::int64_t>(summary.records), facts.records);
  std::int64_t printed = otf2_print_record_count(anchor);
  if (printed >= 0) {
    EXPECT_EQ(printed, facts.records);
  }
  // Progress comes per chunk of 64K records and per location, never per event.
  EXPECT_LE(progress_calls, 2 * static_cast<std::uint64_t>(facts.locations) + facts.records / 65536 + 1);

  weft::db::RunInfo info = weft::db::read_run_info(options.output_path);
  EXPECT_EQ(info.schema_version, weft::db::kSchemaVersion);
  EXPECT_EQ(info.records, facts.records);
  EXPECT_EQ(info.processes, facts.locations);
  EXPECT_EQ(info.unmatched_sends, 0);
  EXPECT_EQ(info.unmatched_recvs, 0);

  weft::db::Database db = weft::db::open_run(options.output_path);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM messages WHERE send_event IS NOT NULL"), facts.sends);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM collective_members"), facts.collectives);
  EXPECT_EQ(db.query_int("SELECT sum(members) FROM collectives", 0), facts.collectives);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM events"), info.events);
  EXPECT_EQ(db.query_int("SELECT sum(record_count) FROM processes"), facts.records);
  // Ids are dense and contiguous per process.
  EXPECT_EQ(db.query_int("SELECT count(*) FROM events e JOIN processes p ON p.process = e.process "
                         "WHERE e.id < p.first_event OR e.id >= p.first_event + p.event_count"),
            0);
  EXPECT_EQ(db.query_int("SELECT max(id) + 1 FROM events", 0), info.events);
  // The bucket key follows the rule in event_buckets.h.
  std::int64_t shift = info.meta_int("bucket_shift", -1);
  ASSERT_GE(shift, 0);
  weft::db::Statement rows = db.prepare("SELECT bucket, start_ns, end_ns FROM events");
  std::int64_t wrong = 0;
  while (rows.step())
    if (rows.column_int(0) !=
        weft::db::bucket_key(rows.column_int(1), rows.column_int(2), static_cast<int>(shift)))
      ++wrong;
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM events WHERE end_ns < start_ns"), 0);
  EXPECT_FALSE(weft::test::has_temp_files(dir.path));
}

TEST_P(RealTrace, DecodeOnlyCountsTheSameRecords) {
  if (!have_traces()) GTEST_SKIP() << kTraces << " is absent: no real traces to decode";
  const TraceFacts& facts = GetParam();
  auto r = weft::db::decode_only_otf2(kTraces + "/" + facts.folder + "/traces.otf2");
  EXPECT_EQ(static_cast<std::int64_t>(r.records), facts.records);
}

INSTANTIATE_TEST_SUITE_P(SharedTraces, RealTrace, ::testing::ValuesIn(kFacts),
                         [](const auto& param_info) {
                           std::string name = param_info.param.folder;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// mpi-coverage-10 has four two-member split communicators and two self-like
// ones; every message must connect the processes whose events hold it.
TEST(ImportMessages, SubCommunicatorMatchingIsConsistent) {
  if (!have_traces()) GTEST_SKIP() << kTraces << " is absent";
  weft::test::TempDir dir("coverage");
  weft::db::ImportOptions options;
  options.trace_path = kTraces + "/mpi-coverage-10/traces.otf2";
  options.output_path = (dir.path / "run.weft").string();
  weft::db::import_otf2(options);
  weft::db::Database db = weft::db::open_run(options.output_path);

  EXPECT_EQ(db.query_int("SELECT count(*) FROM messages"), 1440);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM messages WHERE send_event IS NULL OR recv_event IS "
                         "NULL OR send_done_event IS NULL OR recv_post_event IS NULL"),
            0);
  for (const char* column : {"send_event", "send_done_event"})
    EXPECT_EQ(db.query_int(std::string("SELECT count(*) FROM messages m JOIN events e ON e.id = m.") +
                           column + " WHERE e.process <> m.src"),
              0)
        << column;
  for (const char* column : {"recv_event", "recv_post_event"})
    EXPECT_EQ(db.query_int(std::string("SELECT count(*) FROM messages m JOIN events e ON e.id = m.") +
                           column + " WHERE e.process <> m.dst"),
              0)
        << column;
  // The events are the calls that did it: Isend posts, Irecv posts, Wait* completes.
  EXPECT_EQ(db.query_int("SELECT count(*) FROM messages m JOIN events e ON e.id = m.send_event "
                         "JOIN regions r ON r.region = e.region WHERE r.kind <> 2"),
            0);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM messages m JOIN events e ON e.id = m.recv_post_event "
                         "JOIN regions r ON r.region = e.region WHERE r.kind <> 4"),
            0);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM messages m JOIN events e ON e.id = m.recv_event "
                         "JOIN regions r ON r.region = e.region WHERE r.kind <> 5"),
            0);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM messages WHERE send_ns > recv_ns"), 0);
  // Split communicators {0,6} {1,7} {2,8} {3,9}: messages stay inside them.
  EXPECT_EQ(db.query_int("SELECT count(*) FROM comm_members WHERE comm BETWEEN 1 AND 4"), 8);
  EXPECT_GT(db.query_int("SELECT count(*) FROM messages WHERE comm BETWEEN 1 AND 4"), 0);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM messages m WHERE comm BETWEEN 1 AND 4 AND "
                         "(m.src % 6 <> m.dst % 6 AND abs(m.src - m.dst) <> 6)"),
            0);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM messages m WHERE m.comm BETWEEN 1 AND 4 AND NOT "
                         "EXISTS (SELECT 1 FROM comm_members c WHERE c.comm = m.comm AND "
                         "c.process = m.src) "),
            0);
  // Self-like communicators: one-member instances, per process.
  EXPECT_EQ(db.query_int("SELECT count(*) FROM communicators WHERE self_like = 1"), 3);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM collectives c JOIN communicators k ON k.comm = c.comm "
                         "WHERE k.self_like = 1 AND c.members <> 1"),
            0);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM collectives WHERE comm BETWEEN 1 AND 4 AND members <> 2"),
            0);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM collectives WHERE comm = 0 AND members <> 10"), 0);
  // A member's event is the region instance on that process that holds the record.
  EXPECT_EQ(db.query_int("SELECT count(*) FROM collective_members m JOIN events e ON e.id = m.event "
                         "WHERE e.process <> m.process OR e.start_ns <> m.start_ns OR e.end_ns <> m.end_ns"),
            0);
}

TEST(ImportInfo, InfoCommandPrintsTheSummary) {
  if (!have_traces()) GTEST_SKIP() << kTraces << " is absent";
  weft::test::TempDir dir("info");
  path out = dir.path / "pp.weft";
  auto r = weft::test::run_command(std::string(WEFT_BINARY) + " import --quiet " + kTraces +
                                   "/ping-pong-otf2/traces.otf2 -o " + weft::test::quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = weft::test::run_command(std::string(WEFT_BINARY) + " info " + weft::test::quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string version = "schema version   " + std::to_string(weft::db::kSchemaVersion);
  for (const char* expected : {"processes        2", "OTF2 records     120", "16 matched",
                               version.c_str(), "ping-pong-otf2/traces.otf2", "Score-P",
                               "time span"})
    EXPECT_NE(r.output.find(expected), std::string::npos) << expected << "\n" << r.output;
}

}  // namespace
