// The viewer's process and function filter (app/view_filter.h) and how the
// timeline geometry honours it (render/timeline_geometry.h).
#include <gtest/gtest.h>

#include "app/view_filter.h"
#include "common/error.h"
#include "timeline_geometry.h"

using weft::ProcessIndex;
using weft::app::parse_process_ranges;

TEST(ProcessRanges, ItemsRangesAndStrides) {
  EXPECT_EQ(parse_process_ranges("", 4), (std::vector<ProcessIndex>{0, 1, 2, 3}));
  EXPECT_EQ(parse_process_ranges("2", 4), (std::vector<ProcessIndex>{2}));
  EXPECT_EQ(parse_process_ranges("0-9:4", 16), (std::vector<ProcessIndex>{0, 4, 8}));
  // Sorted, without repeats, clipped to the processes that exist.
  EXPECT_EQ(parse_process_ranges("5, 1-3, 2, 6-100", 8), (std::vector<ProcessIndex>{1, 2, 3, 5, 6, 7}));
  EXPECT_EQ(parse_process_ranges("0-1023:2", 1024).size(), 512u);
}

TEST(ProcessRanges, BadListsSayWhatIsWrong) {
  for (const char* bad : {"a", "3-1", "1-5:0", "-2", "1,,2", "9"}) {
    try {
      parse_process_ranges(bad, 8);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const weft::Error& e) {
      EXPECT_NE(std::string(e.what()).find("processes"), std::string::npos) << e.what();
    }
  }
}

TEST(ViewFilter, GeometryKeepsShownProcessesAndRegionsOnTheirRows) {
  weft::app::TraceInfo info;
  for (int p = 0; p < 6; ++p) info.processes.name.push_back("Rank " + std::to_string(p));
  info.processes.kind.assign(6, "process");
  info.regions.id = {0, 1};
  info.regions.name = {"compute", "MPI_Send"};
  info.regions.paradigm = {"user", "mpi"};
  info.regions.kind = {weft::RegionKind::Compute, weft::RegionKind::Send};
  info.region_colors = {weft::render::rgba8(150, 150, 150), weft::render::rgba8(90, 150, 235)};
  auto filter = weft::app::make_view_filter(info, "1-5:2", {1, 0}, "send");  // hide compute
  EXPECT_EQ(filter->rows(), 3u);
  EXPECT_EQ(filter->row(3), 1);
  EXPECT_EQ(filter->row(2), -1);
  EXPECT_FALSE(filter->all_processes);
  // The search dims the regions it does not match.
  EXPECT_NE(filter->region_colors[0], info.region_colors[0]);
  EXPECT_EQ(filter->region_colors[1], info.region_colors[1]);

  weft::db::WindowEvents events;
  for (ProcessIndex p = 0; p < 6; ++p)
    for (std::int32_t region : {0, 1}) {
      events.id.push_back(static_cast<weft::EventId>(events.id.size()));
      events.process.push_back(p);
      events.start_ns.push_back(10 * region);
      events.end_ns.push_back(10 * region + 5);
      events.region.push_back(region);
      events.depth.push_back(0);
    }
  weft::db::WindowMessages messages;
  messages.id = {0, 1};
  messages.src = {1, 1};
  messages.dst = {5, 2};  // the second ends on a hidden process
  messages.send_ns = {0, 0};
  messages.recv_ns = {5, 5};
  weft::render::TimelineGeometry g;
  weft::render::GeometryFilter gf{&filter->row_of_process, &filter->region_hidden};
  weft::render::build_timeline_geometry(events, messages, filter->region_colors, 0, 0, gf, g);
  ASSERT_EQ(g.box_count(), 3u);  // MPI_Send on processes 1, 3 and 5
  for (std::size_t b = 0; b < 3; ++b) {
    EXPECT_EQ(events.region[g.box_event[b]], 1);
    EXPECT_EQ(g.box_row[2 * b], static_cast<float>(b));
  }
  ASSERT_EQ(g.line_count(), 1u);
  EXPECT_EQ(g.line_row[0], 0.0f);
  EXPECT_EQ(g.line_row[1], 2.0f);
}
