// The .sts and log parsers on hand-written inputs: the layouts of both
// format versions, unknown records, and the one-line errors for damage.
#include <gtest/gtest.h>

#include "common/error.h"
#include "projections/chare_table.h"
#include "projections/log_reader.h"
#include "projections/sts_reader.h"
#include "projections_test_support.h"

namespace {

namespace fs = std::filesystem;
using weft::db::LogReader;
using weft::db::LogRecord;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const weft::Error& e) {
    return e.what();
  }
  return "";
}

TEST(StsReader, ReadsVersion11AndVersion7Lines) {
  weft::test::TempDir dir("sts");
  weft::test::write_bytes(dir.path / "a.sts",
                          "VERSION 11.0\nPROCESSORS 3\nTOTAL_CHARES 2\nTOTAL_EPS 2\nTOTAL_MSGS 1\nTOTAL_EVENTS 1\n"
                          "CHARE 0 \"Main\" -1\nCHARE 1 \"Jacobi\" 2\n"
                          "ENTRY CHARE 0 \"Main(CkArgMsg* impl_msg)\" 0 0\nENTRY CHARE 1 \"recv(int a, int b)\" 1 0\n"
                          "MESSAGE 0 8\nEVENT 7 AMPI_Send\nEND\n");
  weft::db::StsDefinitions a = weft::db::read_sts((dir.path / "a.sts").string());
  EXPECT_EQ(a.pes, 3);
  EXPECT_EQ(a.version_text, "11.0");
  EXPECT_EQ(a.chares[1].name, "Jacobi");
  EXPECT_EQ(a.chares[1].dimensions, 2);
  EXPECT_EQ(a.index_fields(1), 2);
  EXPECT_EQ(a.index_fields(0), 4);
  EXPECT_EQ(a.entry_display_name(1), "Jacobi::recv(int a, int b)");
  ASSERT_NE(a.user_event_name(7), nullptr);
  EXPECT_EQ(*a.user_event_name(7), "AMPI_Send");
  // 7.0: bare names, spaces in entry names, no chare dimensions.
  weft::test::write_bytes(dir.path / "b.sts",
                          "VERSION 7.0\nPROCESSORS 1\nTOTAL_CHARES 1\nTOTAL_EPS 1\nCHARE 0 Block\n"
                          "ENTRY CHARE 0 Block(unsigned int blockSize, const CkCallback &impl_noname_0) 0 11\nEND\n");
  weft::db::StsDefinitions b = weft::db::read_sts((dir.path / "b.sts").string());
  EXPECT_EQ(b.chares[0].name, "Block");
  EXPECT_EQ(b.chares[0].dimensions, -1);
  EXPECT_EQ(b.entries[0].name, "Block(unsigned int blockSize, const CkCallback &impl_noname_0)");
  EXPECT_EQ(b.entries[0].chare, 0);
}

TEST(StsReader, AbsurdOrInconsistentCountsAreOneLineErrors) {
  weft::test::TempDir dir("sts-bad");
  const fs::path p = dir.path / "x.sts";
  auto fails = [&](const std::string& text, const std::string& needle) {
    weft::test::write_bytes(p, text);
    std::string e = error_of([&] { weft::db::read_sts(p.string()); });
    EXPECT_NE(e.find(p.string()), std::string::npos) << e;
    EXPECT_NE(e.find(needle), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos);
  };
  fails("VERSION 11.0\nPROCESSORS 99999999999\n", "PROCESSORS");
  fails("PROCESSORS 2\nTOTAL_CHARES 4000000000\n", "TOTAL_CHARES");
  fails("PROCESSORS 2\nTOTAL_CHARES 1\nTOTAL_EPS 1\nCHARE 5 \"X\" -1\n", "beyond TOTAL_CHARES");
  fails("PROCESSORS 2\nTOTAL_CHARES 1\nTOTAL_EPS 1\nCHARE 0 \"X\" -1\nENTRY CHARE 0 \"f()\" 3 0\nEND\n", "chare type 3");
  fails("PROCESSORS 2\nTOTAL_CHARES 1\nTOTAL_EPS 1\nTOTAL_EVENTS 0\nEVENT 1 a\n", "TOTAL_EVENTS");
  fails("VERSION 11.0\n", "no PROCESSORS");
  fails("PROCESSORS two\n", "not an integer");
}

TEST(LogReader, DecodesEveryLayoutAndSkipsUnknownTypes) {
  weft::test::TempDir dir("log");
  const fs::path p = dir.path / "p.0.log";
  weft::test::write_bytes(p,
                          "PROJECTIONS-RECORD 9\n"
                          "6 100\n"
                          "1 2 8 110 5 0 64 0\n"
                          "2 2 8 120 5 1 64 0 3 4 900\n"
                          "3 2 8 130 5 1 64 905\n"
                          "55 1 2 3\n"
                          "21 2 7 140 6 0 16 0 2 1 2\n"
                          "98 3 150 7 0 12\n"
                          "32 160 -1 0.5 0 200\n"
                          "28 170 a note with words\n");
  LogReader r(p.string(), 0);
  LogRecord rec;
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.type, weft::db::kBeginComputation);
  EXPECT_EQ(rec.time_us, 100);
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.type, weft::db::kCreation);
  EXPECT_EQ(rec.entry, 8);
  EXPECT_EQ(rec.event, 5);
  EXPECT_EQ(rec.msglen, 64);
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.type, weft::db::kBeginProcessing);
  EXPECT_EQ(rec.pe, 1);
  EXPECT_EQ(rec.index_count, 2);
  EXPECT_EQ(rec.index[0], 3);
  EXPECT_EQ(rec.index[1], 4);
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.type, weft::db::kEndProcessing);
  EXPECT_EQ(rec.time_us, 130);
  ASSERT_TRUE(r.next(rec));  // type 55 skipped
  EXPECT_EQ(rec.type, weft::db::kCreationMulticast);
  EXPECT_EQ(rec.dest_count, 2);
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.type, weft::db::kBeginUserEventPair);
  EXPECT_EQ(rec.entry, 3);
  EXPECT_EQ(rec.nested_id, 12);
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.type, weft::db::kUserStat);
  EXPECT_EQ(rec.time_us, 160);
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.type, weft::db::kUserSuppliedNote);
  EXPECT_FALSE(r.next(rec));
  EXPECT_EQ(r.records(), 9u);
  EXPECT_EQ(r.unknown_records(), 1u);
  EXPECT_EQ(r.header_count(), 9);
}

TEST(LogReader, TruncatedRecordsAndGzipErrorsNameTheFile) {
  weft::test::TempDir dir("log-bad");
  auto fails = [&](const std::string& name, const std::string& bytes, const std::string& needle) {
    const fs::path p = dir.path / name;
    weft::test::write_bytes(p, bytes);
    std::string e = error_of([&] {
      LogReader r(p.string(), 0);
      LogRecord rec;
      while (r.next(rec)) {
      }
    });
    EXPECT_NE(e.find(p.string()), std::string::npos) << e;
    EXPECT_NE(e.find(needle), std::string::npos) << e;
  };
  fails("a.log", "PROJECTIONS-RECORD 2\n6 1\n2 2 8 120\n", "truncated BEGIN_PROCESSING");
  fails("b.log", "PROJECTIONS-RECORD 2\n6 1\n3 2 8 130 5 1 64 9", "no final newline");
  fails("c.log", "PROJECTIONS-RECORD 1\nhello\n", "does not start with a type number");
  fails("d.log", "6 99999999999999999999\n", "out of range");
  // A gzip stream cut in half.
  const fs::path gz = dir.path / "e.log.gz";
  {
    gzFile f = gzopen(gz.c_str(), "wb");
    std::string text = "PROJECTIONS-RECORD 1000\n";
    for (int i = 0; i < 1000; ++i) text += "14 " + std::to_string(i * 7919) + " 0\n";
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
  }
  std::string bytes = weft::test::read_bytes(gz);
  fails("f.log.gz", bytes.substr(0, bytes.size() / 2), "gzip error");
  std::string flipped = bytes;
  flipped[flipped.size() - 6] ^= 0x55;  // the CRC-32 trailer
  fails("g.log.gz", flipped, "gzip error");
}

TEST(ChareTable, RuntimeRule) {
  for (const char* name : {"dummy_thread_chare", "SDAG", "Group", "CkReductionMgr", "CkLocMgr", "CkArray",
                           "RRMap", "DefaultArrayMap", "NullLB", "LBDatabase", "MetaBalancer", "ckcallback_group",
                           "TraceProjectionsBOC", "KMeansBOC", "waitqd_QDChare", "FutureBOC", "TempoArray"})
    EXPECT_TRUE(weft::db::is_runtime_chare_type(name)) << name;
  for (const char* name : {"Main", "Hello", "Jacobi", "Block", "Worker", "ampi", "ampiParent", "Ping", "LeanMD"})
    EXPECT_FALSE(weft::db::is_runtime_chare_type(name)) << name;
  weft::db::ChareTable t;
  int idx[2] = {3, 4};
  EXPECT_EQ(t.chare_of(1, true, idx, 2, 0), 0);
  EXPECT_EQ(t.chare_of(1, true, idx, 2, 5), 0);  // an element is one chare wherever it runs
  EXPECT_EQ(t.chare_of(2, false, idx, 4, 0), 1);
  EXPECT_EQ(t.chare_of(2, false, idx, 4, 1), 2);  // a group: one chare per PE
  EXPECT_EQ(t.rows()[0].home_pe, 0);
}

}  // namespace

namespace {

// With TOTAL_PAPI_EVENTS 2, two counters follow the CPU time of processing
// records; the index is what lies between.
TEST(LogReader, PapiCountersAreNotMistakenForTheIndex) {
  weft::test::TempDir dir("log-papi");
  const fs::path p = dir.path / "p.0.log";
  weft::test::write_bytes(p, "2 2 8 120 5 1 64 0 7 900 11 12\n2 2 8 130 6 1 64 0 1 2 3 4 910 11 12\n");
  LogReader r(p.string(), 2);
  LogRecord rec;
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.index_count, 1);
  EXPECT_EQ(rec.index[0], 7);
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.index_count, 4);
  EXPECT_EQ(rec.index[3], 4);
}

}  // namespace
