#include "projections/log_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace weft::db {
namespace {

constexpr std::size_t kChunk = 256 << 10;
constexpr std::size_t kMaxLine = 1 << 20;  // a record line longer than this is not Projections

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Parses up to `max` integers from [p, end); stops at the first word that is
// not an integer (text of notes, the float of USER_STAT). Returns the count.
int parse_ints(const char*& p, const char* end, std::int64_t* out, int max) {
  int n = 0;
  while (n < max) {
    while (p < end && is_space(*p)) ++p;
    if (p == end) break;
    const char* q = p;
    bool negative = false;
    if (*q == '-') {
      negative = true;
      ++q;
    }
    if (q == end || *q < '0' || *q > '9') break;
    std::uint64_t v = 0;
    int digits = 0;
    while (q < end && *q >= '0' && *q <= '9') {
      v = v * 10 + static_cast<std::uint64_t>(*q - '0');
      if (++digits > 18) return -1;  // beyond int64: malformed
      ++q;
    }
    if (q < end && !is_space(*q)) break;  // "12.5", "3abc": not an integer word
    out[n++] = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    p = q;
  }
  return n;
}

int to_int(std::int64_t v) {
  return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : static_cast<int>(v);
}

// "mtype ep time event pe msglen": the head of creation and processing records.
void message_head(LogRecord& r, const std::int64_t* a) {
  r.mtype = to_int(a[0]);
  r.entry = to_int(a[1]);
  r.time_us = a[2];
  r.event = a[3];
  r.pe = to_int(a[4]);
  r.msglen = a[5];
}

// "time event pe" starting at a[0].
void time_event_pe(LogRecord& r, const std::int64_t* a) {
  r.time_us = a[0];
  r.event = a[1];
  r.pe = to_int(a[2]);
}

}  // namespace

LogReader::LogReader(const std::string& path, int papi_counters) : LogReader(path, papi_counters, own_buffer_) {}

LogReader::LogReader(const std::string& path, int papi_counters, std::vector<char>& buffer)
    : path_(path), papi_(papi_counters), buffer_(buffer) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw Error(path, "missing PE log (the .sts names this PE)");
  if (!S_ISREG(st.st_mode)) throw Error(path, "not a regular file");
  file_ = gzopen(path.c_str(), "rb");
  if (!file_) throw Error(path, std::string("cannot open: ") + std::strerror(errno ? errno : ENOMEM));
  gzbuffer(file_, 256 * 1024);
  if (buffer_.size() < kChunk + kMaxLine) buffer_.resize(kChunk + kMaxLine);
}

LogReader::~LogReader() {
  if (file_) gzclose(file_);
}

void LogReader::fail(const std::string& what) const {
  throw Error(path_, "line " + std::to_string(line_) + ": " + what);
}

bool LogReader::fill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  std::size_t room = buffer_.size() - end_;
  if (room == 0) fail("record line longer than 1 MiB");
  int n = gzread(file_, buffer_.data() + end_, static_cast<unsigned>(std::min(room, kChunk)));
  if (n < 0) {
    int code = 0;
    const char* msg = gzerror(file_, &code);
    throw Error(path_, std::string("gzip error: ") + (msg ? msg : "unknown"));
  }
  if (n == 0) {
    // gzread reports a truncated gzip stream as a short read that sets the
    // error state, not as -1: ask explicitly.
    int code = Z_OK;
    const char* msg = gzerror(file_, &code);
    if (code != Z_OK && code != Z_STREAM_END) throw Error(path_, std::string("gzip error: ") + (msg ? msg : "unknown"));
    eof_ = true;
    return false;
  }
  end_ += static_cast<std::size_t>(n);
  return true;
}

bool LogReader::next_line(const char*& line_begin, const char*& line_end) {
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const char* stop = buffer_.data() + end_;
    const char* nl = static_cast<const char*>(std::memchr(start, '\n', static_cast<std::size_t>(stop - start)));
    if (nl) {
      line_begin = start;
      line_end = nl;
      begin_ = static_cast<std::size_t>(nl + 1 - buffer_.data());
      ++line_;
      return true;
    }
    if (!fill()) {
      if (begin_ == end_) return false;
      // Charm++ ends every record with a newline: a last line without one
      // is a log cut short while it was written.
      ++line_;
      fail("truncated record at the end of the log (no final newline)");
    }
  }
}

bool LogReader::next(LogRecord& r) {
  const char* b = nullptr;
  const char* e = nullptr;
  while (next_line(b, e)) {
    const char* p = b;
    while (p < e && is_space(*p)) ++p;
    if (p == e) continue;  // blank line
    if (*p == 'P') {
      static constexpr char kHeader[] = "PROJECTIONS-RECORD";
      if (static_cast<std::size_t>(e - p) >= sizeof(kHeader) - 1 && std::memcmp(p, kHeader, sizeof(kHeader) - 1) == 0) {
        p += sizeof(kHeader) - 1;
        std::int64_t n = -1;
        if (parse_ints(p, e, &n, 1) == 1) header_count_ = n;
        continue;
      }
      fail("not a Projections record");
    }
    ++records_;
    if (decode(p, e, r)) return true;
    ++unknown_;
  }
  return false;
}

bool LogReader::decode(const char* p, const char* end, LogRecord& r) {
  // 32 fields hold the longest fixed layout (BEGIN_PROCESSING: 8 + a 4-int
  // index + CPU time) with up to kMaxPapiEvents counters; later fields (a
  // multicast's destination list, note text) are not needed.
  std::int64_t f[32];
  int n = parse_ints(p, end, f, 32);
  if (n < 0) fail("number out of range");
  if (n == 0) fail("record does not start with a type number");
  r = LogRecord{};
  r.type = to_int(f[0]);
  const int k = n - 1;  // fields after the type
  const std::int64_t* a = f + 1;
  auto need = [&](int count, const char* name) {
    if (k < count)
      fail(std::string("truncated ") + name + " record (" + std::to_string(k) + " of " + std::to_string(count) +
           " fields)");
  };
  switch (r.type) {
    case kCreation:
    case kCreationBcast:
    case kCreationMulticast: {
      need(r.type == kCreation ? 6 : 8, r.type == kCreation ? "CREATION" : "CREATION_BCAST/MULTICAST");
      message_head(r, a);
      if (r.type != kCreation) {
        r.dest_count = to_int(a[7]);
        if (r.dest_count < 0) fail("negative destination count");
        // The multicast's destination list may continue past the fields parsed
        // here; it is not needed (receivers are found by their event id).
        if (r.type == kCreationMulticast && k < 8 + std::min(r.dest_count, 7)) fail("truncated CREATION_MULTICAST record");
      }
      return true;
    }
    case kBeginProcessing: {
      need(8, "BEGIN_PROCESSING");
      message_head(r, a);
      // fields: 7 fixed + index... + cpuStart + perf counters
      int idx = k - 7 - 1 - papi_;
      if (idx < 0) fail("truncated BEGIN_PROCESSING record");
      // Charm++ array indices have up to 6 dimensions; the store keeps 4.
      if (idx > 6) fail("BEGIN_PROCESSING record with more than 6 index fields");
      idx = std::min(idx, 4);
      r.index_count = idx;
      for (int i = 0; i < idx; ++i) r.index[i] = to_int(a[7 + i]);
      return true;
    }
    case kEndProcessing:
      need(7, "END_PROCESSING");
      message_head(r, a);
      return true;
    case kEnqueue:
    case kDequeue:
      need(4, "ENQUEUE/DEQUEUE");
      r.mtype = to_int(a[0]);
      time_event_pe(r, a + 1);
      return true;
    case kBeginComputation:
    case kEndComputation:
    case kBeginTrace:
    case kEndTrace:
      need(1, "time-only");
      r.time_us = a[0];
      return true;
    case kBeginInterrupt:
    case kEndInterrupt:
      need(3, "INTERRUPT");
      time_event_pe(r, a);
      return true;
    case kMessageRecv:
      need(5, "MESSAGE_RECV");
      r.mtype = to_int(a[0]);
      time_event_pe(r, a + 1);
      r.msglen = a[4];
      return true;
    case kUserEvent:
    case kBeginUserEventPair:
    case kEndUserEventPair:
    case kUserEventPair:
      need(4, "USER_EVENT");
      r.entry = to_int(a[0]);
      time_event_pe(r, a + 1);
      if (k >= 5 && r.type != kUserEvent) r.nested_id = to_int(a[4]);
      return true;
    case kBeginIdle:
    case kEndIdle:
    case kBeginPack:
    case kEndPack:
    case kBeginUnpack:
    case kEndUnpack:
      need(2, "IDLE/PACK/UNPACK");
      r.time_us = a[0];
      r.pe = to_int(a[1]);
      return true;
    case kBeginFunc:
    case kEndFunc:
      need(2, "BEGIN_FUNC/END_FUNC");
      r.time_us = a[0];
      r.entry = to_int(a[1]);
      return true;
    case kUserSupplied:
      need(1, "USER_SUPPLIED");
      if (k >= 2) r.time_us = a[1];
      return true;
    case kMemoryUsage:
      need(2, "MEMORY_USAGE");
      r.msglen = a[0];
      r.time_us = a[1];
      return true;
    case kUserSuppliedNote:
      need(1, "USER_SUPPLIED_NOTE");
      r.time_us = a[0];
      return true;
    case kUserSuppliedBracketedNote:
      need(3, "USER_SUPPLIED_BRACKETED_NOTE");
      r.time_us = a[0];
      r.end_time_us = a[1];
      r.entry = to_int(a[2]);
      return true;
    case kUserStat:
      need(2, "USER_STAT");
      r.time_us = a[0];
      return true;
    default:
      return false;
  }
}

}  // namespace weft::db
