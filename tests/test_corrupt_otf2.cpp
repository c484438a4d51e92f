// Corrupted-input corpus for the OTF2 importer, generated from a good
// `weft synth` archive: truncations at many offsets, byte flips at many
// positions, zero-length, missing and swapped archive files, and hand-written
// archives with absurd definitions. Every case runs `weft import` as a child
// process and must keep the contract of corruption_support.h: a correct
// import or exit 2 with one line naming a file; never a crash, a hang,
// unbounded memory, a half-written output or a leftover temporary file.
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "corruption_support.h"
#include "import_test_support.h"
#include "store/run_info.h"

namespace {

namespace fs = std::filesystem;
using weft::test::CaseTally;
using weft::test::contract_violation;
using weft::test::ProcessResult;

const std::string kWeft = WEFT_BINARY;

// A good archive (`pristine`), a working copy of it that each case damages
// and restores (`work`), and a second, different archive to swap files from.
class Otf2Corpus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new weft::test::TempDir("otf2corpus");
    weft::test::synth_trace({"stencil2d", "-n", "4", "-i", "3"}, dir_->path / "pristine");
    weft::test::synth_trace({"stencil2d", "-n", "4", "-i", "3"}, dir_->path / "again");
    weft::test::pin_trace_id(dir_->path / "pristine/traces.otf2", dir_->path / "again/traces.otf2");
    fs::remove_all(dir_->path / "again");
    weft::test::synth_trace({"ring", "-n", "2", "-i", "2"}, dir_->path / "foreign");
    fs::copy(dir_->path / "pristine", dir_->path / "work", fs::copy_options::recursive);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static fs::path pristine() { return dir_->path / "pristine"; }
  static fs::path work() { return dir_->path / "work"; }
  static fs::path foreign() { return dir_->path / "foreign"; }
  static std::string original(const fs::path& rel) {
    return weft::test::read_bytes(pristine() / rel);
  }

  // Applies `overlay` (relative path → new bytes, nullopt: remove the file)
  // to the working copy, imports it, judges the result and restores the copy.
  void run_case(CaseTally& tally, const std::string& name,
                const std::map<fs::path, std::optional<std::string>>& overlay) {
    if (!tally.sample()) return;
    for (const auto& [rel, bytes] : overlay) {
      if (bytes)
        weft::test::write_bytes(work() / rel, *bytes);
      else
        fs::remove(work() / rel);
    }
    fs::path out = dir_->path / "out.weft";
    ProcessResult r = weft::test::run_process(
        {kWeft, "import", "--quiet", (work() / "traces.otf2").string(), "-o", out.string()});
    std::string violation = contract_violation(r, {dir_->path});
    if (violation.empty() && r.exit_code == 0) {
      // "Imports correctly": the output is a readable run.
      try {
        weft::db::RunInfo info = weft::db::read_run_info(out.string());
        if (info.processes <= 0) violation = "imported a run without processes";
      } catch (const std::exception& e) {
        violation = std::string("the imported run does not open: ") + e.what();
      }
    }
    if (violation.empty() && r.exit_code != 0 && fs::exists(out))
      violation = "a failed import left an output";
    if (violation.empty() && weft::test::has_temp_files_below(dir_->path))
      violation = "a temporary file was left behind";
    tally.record(name, violation, r);
    std::error_code ec;
    fs::remove(out, ec);
    for (const auto& [rel, bytes] : overlay) weft::test::write_bytes(work() / rel, original(rel));
  }

  static inline weft::test::TempDir* dir_ = nullptr;
};

// Files of the archive and how densely each is damaged. Local files of
// location 0 and the last location; the others look the same.
struct Target {
  const char* file;
  std::size_t truncations;  // how many offsets to cut at
  std::size_t flip_stride;  // flip every n-th byte
};
const Target kTargets[] = {
    {"traces.otf2", 32, 1}, {"traces.def", 40, 3}, {"traces/0.def", 20, 1},
    {"traces/0.evt", 40, 4}, {"traces/3.evt", 24, 8},
};

TEST_F(Otf2Corpus, Truncations) {
  CaseTally tally("otf2 truncations");
  for (const Target& t : kTargets) {
    std::string bytes = original(t.file);
    for (std::size_t size : weft::test::spread_offsets(bytes.size(), t.truncations))
      run_case(tally, std::string(t.file) + " cut to " + std::to_string(size),
               {{t.file, bytes.substr(0, size)}});
  }
}

TEST_F(Otf2Corpus, ByteFlips) {
  CaseTally tally("otf2 byte flips");
  static const unsigned char kMasks[] = {0xff, 0x01, 0x80, 0x10, 0x7f};
  int k = 0;
  for (const Target& t : kTargets) {
    std::string bytes = original(t.file);
    for (std::size_t at = 0; at < bytes.size(); at += t.flip_stride) {
      std::string damaged = bytes;
      unsigned char mask = kMasks[k++ % std::size(kMasks)];
      damaged[at] = static_cast<char>(damaged[at] ^ mask);
      run_case(tally, std::string(t.file) + " byte " + std::to_string(at) + " ^ " + std::to_string(mask),
               {{t.file, damaged}});
    }
  }
}

TEST_F(Otf2Corpus, ZeroLengthMissingAndSwappedFiles) {
  CaseTally tally("otf2 zero-length, missing and swapped files");
  for (const fs::path& rel : weft::test::files_under(pristine())) {
    run_case(tally, rel.string() + " empty", {{rel, std::string()}});
    run_case(tally, rel.string() + " missing", {{rel, std::nullopt}});
  }
  auto file = [&](const char* rel) { return original(rel); };
  auto other = [&](const char* rel) { return weft::test::read_bytes(foreign() / rel); };
  using Overlay = std::map<fs::path, std::optional<std::string>>;
  const std::pair<const char*, Overlay> swaps[] = {
      {"0.evt <-> 1.evt", {{"traces/0.evt", file("traces/1.evt")}, {"traces/1.evt", file("traces/0.evt")}}},
      {"1.evt = 0.evt", {{"traces/1.evt", file("traces/0.evt")}}},
      {"0.evt <-> 0.def", {{"traces/0.evt", file("traces/0.def")}, {"traces/0.def", file("traces/0.evt")}}},
      {"traces.def <-> 0.def", {{"traces.def", file("traces/0.def")}, {"traces/0.def", file("traces.def")}}},
      {"anchor <-> traces.def", {{"traces.otf2", file("traces.def")}, {"traces.def", file("traces.otf2")}}},
      {"anchor = 0.evt", {{"traces.otf2", file("traces/0.evt")}}},
      {"traces.def = 0.evt", {{"traces.def", file("traces/0.evt")}}},
      {"foreign anchor", {{"traces.otf2", other("traces.otf2")}}},
      {"foreign traces.def", {{"traces.def", other("traces.def")}}},
      {"foreign 0.evt", {{"traces/0.evt", other("traces/0.evt")}}},
      {"foreign 1.evt and 1.def", {{"traces/1.evt", other("traces/1.evt")}, {"traces/1.def", other("traces/1.def")}}},
      {"all event files missing",
       {{"traces/0.evt", std::nullopt}, {"traces/1.evt", std::nullopt},
        {"traces/2.evt", std::nullopt}, {"traces/3.evt", std::nullopt}}},
  };
  for (const auto& [name, overlay] : swaps) run_case(tally, name, overlay);
  // A directory where the anchor should be.
  {
    fs::path anchor = work() / "traces.otf2";
    fs::remove(anchor);
    fs::create_directory(anchor);
    run_case(tally, "anchor is a directory", {});
    fs::remove(anchor);
    weft::test::write_bytes(anchor, original("traces.otf2"));
  }
}

}  // namespace

namespace {

// Archives that are well-formed OTF2 but lie in their definitions: absurd
// counts and references an importer must not trust for allocation sizes or
// indexing. Written with the OTF2 writer API (its reader then hands the lies
// to weft unchanged).
struct Hostile {
  std::string name;
  std::uint64_t claimed_events = 0;        // 0: the true count
  std::uint64_t extra_locations = 0;       // defined, without event files
  std::uint64_t location_ref_base = 0;     // refs of the real locations
  std::uint32_t region_ref = 0;            // the region the events enter
  std::uint64_t resolution = 1000000000;
  std::uint64_t offset = 0;
  std::uint64_t first_time = 10;
  std::uint64_t time_step = 10;
  std::uint32_t group_members = 2;         // members listed in the MPI groups
  std::uint64_t member_base = 0;           // first member location / rank
  std::uint32_t send_peer = 1;             // rank the MPI send names
  std::uint32_t comm_ref = 0;              // communicator the send and collective name
  std::uint32_t collective_root = 0;
  bool define_comm = true;
  std::uint32_t depth = 2;                 // nesting depth of the region instances
};

fs::path write_hostile_archive(const fs::path& dir, const Hostile& h) {
  using weft::test::no_flush;
  OTF2_Archive* archive = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                            4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  OTF2_FlushCallbacks flush{no_flush, nullptr};
  OTF2_Archive_SetFlushCallbacks(archive, &flush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  OTF2_Archive_SetCreator(archive, "weft hostile test");
  std::uint64_t records[2] = {0, 0};
  std::uint64_t end = 0;
  OTF2_Archive_OpenEvtFiles(archive);
  for (std::uint64_t loc = 0; loc < 2; ++loc) {
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, h.location_ref_base + loc);
    std::uint64_t t = h.first_time;
    auto next = [&] { std::uint64_t now = t; t += h.time_step; end = std::max(end, now); ++records[loc]; return now; };
    for (std::uint32_t d = 0; d < h.depth; ++d) OTF2_EvtWriter_Enter(w, nullptr, next(), h.region_ref);
    if (loc == 0) OTF2_EvtWriter_MpiSend(w, nullptr, next(), h.send_peer, h.comm_ref, 7, 64);
    if (loc == 1) OTF2_EvtWriter_MpiRecv(w, nullptr, next(), 0, h.comm_ref, 7, 64);
    OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, next());
    OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, next(), OTF2_COLLECTIVE_OP_BCAST, h.comm_ref,
                                    h.collective_root, 8, 8);
    for (std::uint32_t d = 0; d < h.depth; ++d) OTF2_EvtWriter_Leave(w, nullptr, next(), h.region_ref);
    OTF2_Archive_CloseEvtWriter(archive, w);
  }
  OTF2_Archive_CloseEvtFiles(archive);
  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
  OTF2_GlobalDefWriter_WriteClockProperties(g, h.resolution, h.offset, end - h.offset + 1,
                                            OTF2_UNDEFINED_TIMESTAMP);
  const char* strings[] = {"", "main", "node", "Rank", "Master thread", "MPI_COMM_WORLD"};
  for (std::uint32_t i = 0; i < 6; ++i) OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
  OTF2_GlobalDefWriter_WriteRegion(g, h.region_ref, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION,
                                   OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 2, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (std::uint64_t loc = 0; loc < 2 + h.extra_locations; ++loc) {
    std::uint64_t ref = h.location_ref_base + loc;
    OTF2_GlobalDefWriter_WriteLocationGroup(g, static_cast<std::uint32_t>(loc), 3,
                                            OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    std::uint64_t claimed = h.claimed_events ? h.claimed_events : loc < 2 ? records[loc] : 0;
    OTF2_GlobalDefWriter_WriteLocation(g, ref, 4, OTF2_LOCATION_TYPE_CPU_THREAD, claimed,
                                       static_cast<std::uint32_t>(loc));
  }
  std::vector<std::uint64_t> members;
  for (std::uint32_t i = 0; i < h.group_members; ++i) members.push_back(h.member_base + i);
  OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, members.size(), members.data());
  OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, members.size(), members.data());
  if (h.define_comm)
    OTF2_GlobalDefWriter_WriteComm(g, 0, 5, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  OTF2_Archive_CloseGlobalDefWriter(archive, g);
  OTF2_Archive_Close(archive);
  return dir / "traces.otf2";
}

TEST(Otf2HostileDefinitions, AbsurdCountsAndReferences) {
  CaseTally tally("otf2 absurd definitions");
  const std::uint64_t k2p40 = std::uint64_t{1} << 40;
  std::vector<Hostile> cases;
  auto add = [&](const char* name, auto tweak) {
    Hostile h;
    h.name = name;
    tweak(h);
    cases.push_back(h);
  };
  add("baseline", [](Hostile&) {});
  add("a location claims 2^40 events", [&](Hostile& h) { h.claimed_events = k2p40; });
  add("a location claims 2^63 events", [](Hostile& h) { h.claimed_events = std::uint64_t{1} << 63; });
  add("a location claims 2^64-1 events", [](Hostile& h) { h.claimed_events = ~std::uint64_t{0}; });
  add("20000 locations without event files", [](Hostile& h) { h.extra_locations = 20000; });
  add("location references near 2^40", [&](Hostile& h) { h.location_ref_base = k2p40; });
  add("location references near 2^64", [](Hostile& h) { h.location_ref_base = ~std::uint64_t{0} - 8; });
  add("region reference 2^31", [](Hostile& h) { h.region_ref = 1u << 31; });
  add("region reference 2^32-2", [](Hostile& h) { h.region_ref = 0xfffffffe; });
  add("clock resolution 1 tick/s", [](Hostile& h) { h.resolution = 1; });
  add("clock resolution 2^64-1", [](Hostile& h) { h.resolution = ~std::uint64_t{0}; });
  add("timestamps near 2^64", [](Hostile& h) { h.first_time = ~std::uint64_t{0} - 1000; });
  add("timestamps near 2^63 at 1 tick/s",
      [](Hostile& h) { h.first_time = std::uint64_t{1} << 62; h.time_step = std::uint64_t{1} << 58; h.resolution = 1; });
  add("global offset after the events", [](Hostile& h) { h.offset = 1000; });
  add("group members beyond the locations", [](Hostile& h) { h.member_base = 1000; });
  add("group members near 2^64", [](Hostile& h) { h.member_base = ~std::uint64_t{0} - 4; });
  add("100000 group members", [](Hostile& h) { h.group_members = 100000; });
  add("empty MPI groups", [](Hostile& h) { h.group_members = 0; });
  add("send to rank 2^32-1", [](Hostile& h) { h.send_peer = 0xffffffff; });
  add("send to rank 7", [](Hostile& h) { h.send_peer = 7; });
  add("undefined communicator", [](Hostile& h) { h.define_comm = false; });
  add("communicator reference 2^32-2", [](Hostile& h) { h.comm_ref = 0xfffffffe; });
  add("collective root 2^31", [](Hostile& h) { h.collective_root = 1u << 31; });
  add("nesting depth 100000", [](Hostile& h) { h.depth = 100000; });
  weft::test::TempDir dir("hostile");
  int i = 0;
  for (const Hostile& h : cases) {
    fs::path archive = dir.path / ("a" + std::to_string(i));
    fs::path out = dir.path / ("a" + std::to_string(i) + ".weft");
    ++i;
    fs::path anchor = write_hostile_archive(archive, h);
    ProcessResult r = weft::test::run_process({kWeft, "import", "--quiet", anchor.string(), "-o", out.string()});
    std::string violation = contract_violation(r, {dir.path});
    if (violation.empty() && r.exit_code == 0) {
      ProcessResult info = weft::test::run_process({kWeft, "info", out.string()});
      violation = contract_violation(info, {out});
      if (violation.empty() && info.exit_code != 0) violation = "imported, but `weft info` fails: " + info.err;
    }
    if (violation.empty() && weft::test::has_temp_files_below(dir.path)) violation = "temporary file left";
    tally.record(h.name, violation, r);
    fs::remove_all(archive);
    std::error_code ec;
    fs::remove(out, ec);
  }
}

}  // namespace
