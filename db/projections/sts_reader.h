#pragma once
// The Projections definitions file (PROG.sts): PEs, chare types, entry
// methods, message types and user events. Written by Charm++'s
// trace-projections (versions 7.0 to 11.0 seen in the wild; docs/schema.md).
//
// Line formats (one definition per line, first word is the keyword):
//   VERSION 11.0                      PROCESSORS 2
//   CHARE 45 "Hello" 1                (11.0: quoted name, dimensions; -1 = not an array)
//   CHARE 45 Block                    (7.0: bare name, no dimensions)
//   ENTRY CHARE 151 "Hello()" 45 0    (entry id, name, chare type, message type; 7.0: bare name with spaces)
//   MESSAGE 4 4                       EVENT 0 Time Step Begin      STAT 200 name
//   TOTAL_CHARES / TOTAL_EPS / TOTAL_MSGS / TOTAL_EVENTS / TOTAL_STATS n
// The TOTAL_* counts size tables, so they are checked against sanity limits
// before anything is allocated, and against the lines actually read.
#include <cstdint>
#include <string>
#include <vector>

namespace weft::db {

// Sanity limits of the .sts counts (a Charm++ program registers a few
// hundred chares and entries; the PE count bounds the number of log files).
constexpr std::int64_t kMaxProjectionsPes = 1 << 20;
constexpr std::int64_t kMaxStsDefinitions = 1 << 20;
constexpr std::int64_t kMaxPapiEvents = 16;  // the log parser reads at most 32 fields of a record

struct StsChare {
  std::string name;
  int dimensions = -1;  // array index dimensions; -1 (or 0) for groups, nodegroups and singleton chares
  bool defined = false;
};

struct StsEntry {
  std::string name;  // as written, e.g. "recvGhost(GhostMsg* impl_msg)"
  int chare = -1;    // chare type
  int message = -1;
  bool defined = false;
};

struct StsUserEvent {
  int id = 0;
  std::string name;
};

struct StsDefinitions {
  std::string path;
  double version = 0;
  std::string version_text;  // as written, e.g. "11.0"
  std::int64_t pes = 0;
  std::string machine;
  std::vector<StsChare> chares;   // by chare type id
  std::vector<StsEntry> entries;  // by entry id
  std::vector<std::int64_t> message_sizes;
  std::vector<StsUserEvent> user_events;  // EVENT lines, in file order
  std::vector<StsUserEvent> user_stats;   // STAT lines
  int papi_events = 0;  // TOTAL_PAPI_EVENTS: perf counter fields after the CPU times of processing records

  // The index fields of a BEGIN_PROCESSING record for `entry`: the chare's
  // array dimensions, 4 (the object id) for non-array chares (11.0 writes
  // one field per array dimension, else the 4-int CmiObjId); 7.0 logs always
  // carry 4 (its .sts has no dimensions).
  int index_fields(int entry) const;
  // "Chare::entry(args)"; "entry N" for ids the .sts does not define.
  std::string entry_display_name(int entry) const;
  const std::string* user_event_name(int id) const;
};

// Throws weft::Error naming the file for a missing or unreadable file, a
// line that cannot be parsed, a count outside the limits, or TOTAL_* counts
// that disagree with the definitions that follow.
StsDefinitions read_sts(const std::string& path);

// "DIR/PROG.N.log.gz" or "DIR/PROG.N.log" (whichever exists; the .gz when
// neither does, for the error message) for the .sts at `sts_path`.
std::string pe_log_path(const std::string& sts_path, std::int64_t pe);

}  // namespace weft::db
