#pragma once
// Helpers shared by the import tests: temporary directories, running the weft
// binary, and writing tiny OTF2 archives with the OTF2 writer API (for inputs
// no real trace has: unmatched messages, time going backwards, no locations).
#include <otf2/otf2.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace weft::test {

namespace fs = std::filesystem;

inline fs::path make_temp_dir(const std::string& tag) {
  std::string pattern = (fs::temp_directory_path() / ("weft-" + tag + "-XXXXXX")).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) std::abort();
  return fs::path(buf.data());
}

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) : path(make_temp_dir(tag)) {}
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

inline CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) result.output.append(buf.data(), n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// True when `dir` holds a leftover "*.tmp-XXXXXX" file.
inline bool has_temp_files(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) return true;
  return false;
}

// A tiny MPI archive: `ranks` locations (0..ranks-1) in one communicator.
// Each location's events are given as a list of records.
struct SyntheticRecord {
  enum Kind { Enter, Leave, Send, Recv } kind;
  std::uint64_t time;
  std::uint32_t arg = 0;  // region for Enter/Leave, peer rank for Send/Recv
};

inline OTF2_FlushType no_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
  return OTF2_FLUSH;
}

// Writes DIR/traces.otf2 and returns its path. Regions: 0 "main", 1 "MPI_Send", 2 "MPI_Recv".
// trace_length 0 writes clock properties without a length (as some writers do).
inline fs::path write_synthetic_archive(const fs::path& dir,
                                        const std::vector<std::vector<SyntheticRecord>>& locations,
                                        bool with_trace_length = true) {
  OTF2_Archive* archive = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE,
                                            1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                            OTF2_COMPRESSION_NONE);
  OTF2_FlushCallbacks flush{no_flush, nullptr};
  OTF2_Archive_SetFlushCallbacks(archive, &flush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  OTF2_Archive_SetCreator(archive, "weft tests");
  std::uint64_t end = 0;
  if (!locations.empty()) {
    OTF2_Archive_OpenEvtFiles(archive);
    for (size_t loc = 0; loc < locations.size(); ++loc) {
      OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, loc);
      for (const SyntheticRecord& r : locations[loc]) {
        end = std::max(end, r.time);
        switch (r.kind) {
          case SyntheticRecord::Enter: OTF2_EvtWriter_Enter(w, nullptr, r.time, r.arg); break;
          case SyntheticRecord::Leave: OTF2_EvtWriter_Leave(w, nullptr, r.time, r.arg); break;
          case SyntheticRecord::Send: OTF2_EvtWriter_MpiSend(w, nullptr, r.time, r.arg, 0, 7, 8); break;
          case SyntheticRecord::Recv: OTF2_EvtWriter_MpiRecv(w, nullptr, r.time, r.arg, 0, 7, 8); break;
        }
      }
      OTF2_Archive_CloseEvtWriter(archive, w);
    }
    OTF2_Archive_CloseEvtFiles(archive);
  }
  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
  OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, with_trace_length ? end + 1 : 0,
                                            OTF2_UNDEFINED_TIMESTAMP);
  const char* strings[] = {"", "main", "MPI_Send", "MPI_Recv", "node", "Rank", "Master thread",
                           "MPI_COMM_WORLD"};
  for (std::uint32_t i = 0; i < 8; ++i) OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
  OTF2_GlobalDefWriter_WriteRegion(g, 0, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                   OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteRegion(g, 1, 2, 2, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                   OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteRegion(g, 2, 3, 3, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                   OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 4, 4, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  std::vector<std::uint64_t> members;
  for (size_t loc = 0; loc < locations.size(); ++loc) {
    OTF2_GlobalDefWriter_WriteLocationGroup(g, loc, 5, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(g, loc, 6, OTF2_LOCATION_TYPE_CPU_THREAD,
                                       locations[loc].size(), loc);
    members.push_back(loc);
  }
  if (!locations.empty()) {
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, members.size(), members.data());
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, members.size(), members.data());
    OTF2_GlobalDefWriter_WriteComm(g, 0, 7, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  }
  OTF2_Archive_CloseGlobalDefWriter(archive, g);
  OTF2_Archive_Close(archive);
  return dir / "traces.otf2";
}

}  // namespace weft::test
