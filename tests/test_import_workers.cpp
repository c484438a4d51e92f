// The importer's parallel decoding (db/otf2/location_workers.h): workers
// decode and encode locations with ids from 0, then order (ids shifted,
// records matched) and store them in process order. Whatever the number of
// workers, the run is the same, and a location longer than one piece is
// written in parts that hold every event once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "import_test_support.h"
#include "otf2/location_workers.h"
#include "otf2/otf2_importer.h"
#include "otf2/otf2_synth_writer.h"
#include "store/block_codec.h"
#include "store/sqlite.h"
#include "synth/synth_options.h"
#include "synth_test_support.h"

namespace {

using weft::synth::Pattern;
using weft::synth::SynthOptions;

std::string import_with(const std::string& anchor, const weft::test::fs::path& out, int threads,
                        std::size_t piece_events = 0) {
  weft::db::ImportOptions import;
  import.trace_path = anchor;
  import.output_path = out.string();
  import.threads = threads;
  import.piece_events = piece_events;
  weft::db::import_otf2(import);
  return out.string();
}

// A synthetic OTF2 trace in `dir`; returns its anchor path.
std::string write_trace(const weft::test::fs::path& dir, Pattern pattern, int procs, int iterations,
                        double jitter = 0) {
  SynthOptions options;
  options.pattern = pattern;
  options.procs = procs;
  options.iterations = iterations;
  options.jitter = jitter;
  return weft::db::write_synth_archive(options, (dir / "trace").string(), false).anchor_path;
}

// Every row of the tables an import writes, as text (meta without the paths).
std::string dump_run(const std::string& path) {
  weft::db::Database db(path, weft::db::Database::Mode::ReadOnly);
  const char* queries[] = {
      "SELECT bucket, process, part, count, start_ns, end_ns, first_id, last_id, hex(data) FROM event_blocks ORDER BY 1, 2, 3",
      "SELECT bucket, process, part, count, start_ns, end_ns, first_id, last_id, hex(data) FROM message_blocks ORDER BY 1, 2, 3",
      "SELECT * FROM collectives ORDER BY 1",
      "SELECT collective, count, hex(data) FROM collective_member_blocks ORDER BY 1",
      "SELECT * FROM processes ORDER BY 1",
      "SELECT key, value FROM meta WHERE key NOT IN ('source_path') ORDER BY 1",
  };
  std::string text;
  for (const char* sql : queries) {
    weft::db::Statement s = db.prepare(sql);
    while (s.step()) {
      for (int c = 0; c < s.column_count(); ++c) text += s.column_text(c) + "|";
      text += "\n";
    }
    text += "--\n";
  }
  return text;
}

TEST(ImportWorkers, OneAndTwoWorkersWriteTheSameRun) {
  for (Pattern pattern : {Pattern::AmgLike, Pattern::Stencil2d, Pattern::AllreduceBinomial}) {
    SCOPED_TRACE(std::string(weft::synth::pattern_name(pattern)));
    weft::test::TempDir dir("workers");
    const std::string anchor = write_trace(dir.path, pattern, 12, 3, 0.2);
    const std::string one = dump_run(import_with(anchor, dir.path / "one.weft", 1));
    const std::string two = dump_run(import_with(anchor, dir.path / "two.weft", 2));
    EXPECT_GT(one.size(), 1000u);
    EXPECT_EQ(one, two);
  }
}

// Many short locations: every slot of the ring passes the two serial stages
// (ordering, storing) many times, with the stages and the decoding on
// different workers in every interleaving the threads happen to take. An
// earlier version let the ordering stage take a slot whose location was
// ordered but not yet stored (UNIQUE constraint failed on event_blocks).
TEST(ImportWorkers, ManyShortLocationsGiveTheSameRunWithAnyNumberOfWorkers) {
  weft::test::TempDir dir("workers-many");
  const std::string anchor = write_trace(dir.path, Pattern::AmgLike, 512, 1);
  const std::string one = dump_run(import_with(anchor, dir.path / "one.weft", 1));
  EXPECT_GT(one.size(), 10000u);
  for (int threads : {2, 3, 4, 8}) {
    SCOPED_TRACE(threads);
    for (int repeat = 0; repeat < 3; ++repeat)
      EXPECT_EQ(one, dump_run(import_with(anchor, dir.path / ("run" + std::to_string(threads) + "_" +
                                                                         std::to_string(repeat) + ".weft"),
                                          threads)));
  }
}

// pingpong ranks 0 and 1 have 1 + 3i events: with i = 2,000 that is 6,001,
// more than six pieces of 1,000 rows (the default piece is 512K rows; the
// rule is the same).
TEST(ImportWorkers, LongLocationIsWrittenInPartsHoldingEveryEventOnce) {
  constexpr std::size_t kPiece = 1000;
  constexpr std::size_t kEvents = 6001;
  weft::test::TempDir dir("workers-long");
  const std::string anchor = write_trace(dir.path, Pattern::Pingpong, 2, 2000);
  const std::string path = import_with(anchor, dir.path / "run.weft", 2, kPiece);

  weft::db::Database db(path, weft::db::Database::Mode::ReadOnly);
  EXPECT_GE(db.query_int("SELECT max(part) FROM event_blocks WHERE process = 0"), 5);
  for (int process = 0; process < 2; ++process) {
    SCOPED_TRACE(process);
    const std::int64_t first = db.query_int("SELECT first_event FROM processes WHERE process = " + std::to_string(process));
    std::vector<weft::db::EventRecord> events;
    weft::db::Statement s = db.prepare("SELECT data FROM event_blocks WHERE process = ?1");
    s.bind(1, std::int64_t{process});
    while (s.step()) weft::db::decode_event_block(s.column_blob(0), process, events);
    ASSERT_EQ(events.size(), kEvents);
    std::vector<std::int64_t> ids;
    for (const auto& e : events) ids.push_back(e.id);
    std::sort(ids.begin(), ids.end());
    for (std::size_t k = 0; k < ids.size(); ++k) ASSERT_EQ(ids[k], first + static_cast<std::int64_t>(k)) << k;
  }
  EXPECT_EQ(db.query_int("SELECT first_event FROM processes WHERE process = 1"), static_cast<std::int64_t>(kEvents));
  EXPECT_EQ(dump_run(path), dump_run(import_with(anchor, dir.path / "one.weft", 1, kPiece)));
}

}  // namespace
