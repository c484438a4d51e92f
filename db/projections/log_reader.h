#pragma once
// Streaming reader of one PE's Projections log (PROG.N.log or PROG.N.log.gz,
// both through zlib's gz* API, which reads plain files transparently).
//
// A log is text: a "PROJECTIONS-RECORD N" header line, then one record per
// line, the first field its type. The field layouts below were checked
// against the Charm++ 7.0 and 11.0 logs in ../shared/traces and against
// Charm++'s trace-projections.C and Projections' LogReader (times are
// microseconds since the trace started):
//
//   1  CREATION           mtype ep time event pe msglen sendTime
//   2  BEGIN_PROCESSING   mtype ep time event pe msglen recvTime idx... cpuStart [perf...]
//   3  END_PROCESSING     mtype ep time event pe msglen cpuEnd [perf...]
//   4  ENQUEUE, 5 DEQUEUE mtype time event pe
//   6  BEGIN_COMPUTATION, 7 END_COMPUTATION, 11 BEGIN_TRACE, 12 END_TRACE   time
//   8  BEGIN_INTERRUPT, 9 END_INTERRUPT   time event pe
//   10 MESSAGE_RECV       mtype time event pe msglen
//   13 USER_EVENT         id time event pe
//   14 BEGIN_IDLE, 15 END_IDLE, 16-19 BEGIN/END_PACK/UNPACK   time pe
//   20 CREATION_BCAST     mtype ep time event pe msglen sendTime numPes
//   21 CREATION_MULTICAST mtype ep time event pe msglen sendTime numPes destPe...
//   22 BEGIN_FUNC         time funcId [line name...];   23 END_FUNC  time funcId
//   26 USER_SUPPLIED      value [time]
//   27 MEMORY_USAGE       bytes time
//   28 USER_SUPPLIED_NOTE time text...
//   29 USER_SUPPLIED_BRACKETED_NOTE  time endTime id text...
//   32 USER_STAT          time userTime value pe statId
//   98 BEGIN_USER_EVENT_PAIR, 99 END_USER_EVENT_PAIR, 100 USER_EVENT_PAIR
//                         id time event pe [nestedId]   (nestedId: AMPI's virtual rank)
// The array index of BEGIN_PROCESSING has one field per array dimension (4,
// the object id, for other chares): the count is what is left of the line
// after the fixed fields, the CPU time and the .sts's PAPI counters.
// Any other type is skipped to the end of its line and counted.
#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

namespace weft::db {

enum ProjectionsRecordType : int {
  kCreation = 1,
  kBeginProcessing = 2,
  kEndProcessing = 3,
  kEnqueue = 4,
  kDequeue = 5,
  kBeginComputation = 6,
  kEndComputation = 7,
  kBeginInterrupt = 8,
  kEndInterrupt = 9,
  kMessageRecv = 10,
  kBeginTrace = 11,
  kEndTrace = 12,
  kUserEvent = 13,
  kBeginIdle = 14,
  kEndIdle = 15,
  kBeginPack = 16,
  kEndPack = 17,
  kBeginUnpack = 18,
  kEndUnpack = 19,
  kCreationBcast = 20,
  kCreationMulticast = 21,
  kBeginFunc = 22,
  kEndFunc = 23,
  kUserSupplied = 26,
  kMemoryUsage = 27,
  kUserSuppliedNote = 28,
  kUserSuppliedBracketedNote = 29,
  kUserStat = 32,
  kBeginUserEventPair = 98,
  kEndUserEventPair = 99,
  kUserEventPair = 100,
};

// One decoded record; fields a type does not have keep their defaults.
struct LogRecord {
  int type = 0;
  std::int64_t time_us = -1;
  std::int64_t end_time_us = -1;  // bracketed notes
  int mtype = 0;
  int entry = -1;       // ep, or the user event / function / stat id
  std::int64_t event = -1;  // the creation's sequence number on its PE
  int pe = -1;          // source PE (creation / processing) or the writing PE
  std::int64_t msglen = 0;
  int index_count = 0;
  int index[4] = {0, 0, 0, 0};
  int nested_id = -1;   // user event pairs: AMPI virtual rank, -1 when absent
  int dest_count = 0;   // broadcast / multicast destination PEs
};

class LogReader {
 public:
  // `papi_counters`: the perf counter fields after the CPU times (.sts
  // TOTAL_PAPI_EVENTS; 0 in ordinary builds).
  LogReader(const std::string& path, int papi_counters);
  // Reads through `buffer` (grown on first use) instead of a buffer of its
  // own: an importer reading thousands of PE logs reuses one, rather than
  // paying for fresh zeroed pages per log.
  LogReader(const std::string& path, int papi_counters, std::vector<char>& buffer);
  ~LogReader();
  LogReader(const LogReader&) = delete;
  LogReader& operator=(const LogReader&) = delete;

  // The next record of a known type; false at the end of the log. Records
  // of unknown types are skipped (counted in unknown_records()). Throws
  // weft::Error naming the file and line for a malformed or truncated
  // record and for a gzip error.
  bool next(LogRecord& r);

  std::uint64_t records() const { return records_; }  // every record line, known or not
  std::uint64_t unknown_records() const { return unknown_; }
  std::int64_t header_count() const { return header_count_; }  // PROJECTIONS-RECORD N, -1 if absent
  const std::string& path() const { return path_; }
  std::uint64_t line() const { return line_; }  // of the record last returned

 private:
  bool next_line(const char*& begin, const char*& end);
  bool fill();
  [[noreturn]] void fail(const std::string& what) const;
  bool decode(const char* p, const char* end, LogRecord& r);

  std::string path_;
  gzFile file_ = nullptr;
  int papi_ = 0;
  std::vector<char> own_buffer_;
  std::vector<char>& buffer_;
  std::size_t begin_ = 0;  // unread bytes are buffer_[begin_, end_)
  std::size_t end_ = 0;
  bool eof_ = false;
  std::uint64_t line_ = 0;
  std::uint64_t records_ = 0;
  std::uint64_t unknown_ = 0;
  std::int64_t header_count_ = -1;
};

}  // namespace weft::db
