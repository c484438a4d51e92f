#include "projections/sts_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <string_view>

#include "common/error.h"

namespace weft::db {
namespace {

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::string_view strip_quotes(std::string_view s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
  return s;
}

// The rest of the line after the first `skip` words, quotes removed.
std::string_view rest_after(std::string_view line, std::size_t skip) {
  std::size_t i = 0;
  for (std::size_t w = 0; w < skip; ++w) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
  }
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  std::size_t end = line.size();
  while (end > i && (line[end - 1] == ' ' || line[end - 1] == '\r' || line[end - 1] == '\t')) --end;
  return strip_quotes(line.substr(i, end - i));
}

class StsParser {
 public:
  StsParser(StsDefinitions& defs) : defs_(defs) {}

  void parse_line(std::string_view line, std::int64_t line_no) {
    line_no_ = line_no;
    std::vector<std::string_view> w = split_words(line);
    if (w.empty()) return;
    std::string_view key = w[0];
    if (key == "VERSION") {
      need(w, 2);
      std::string v(w[1]);
      defs_.version_text = v;
      char* end = nullptr;
      defs_.version = std::strtod(v.c_str(), &end);
      if (end == v.c_str()) fail("VERSION is not a number");
    } else if (key == "MACHINE") {
      defs_.machine = std::string(rest_after(line, 1));
    } else if (key == "PROCESSORS") {
      need(w, 2);
      defs_.pes = count(w[1], kMaxProjectionsPes, "PROCESSORS");
      if (defs_.pes < 1) fail("PROCESSORS must be at least 1");
    } else if (key == "TOTAL_CHARES") {
      need(w, 2);
      defs_.chares.resize(static_cast<std::size_t>(count(w[1], kMaxStsDefinitions, "TOTAL_CHARES")));
      total_chares_ = true;
    } else if (key == "TOTAL_EPS") {
      need(w, 2);
      defs_.entries.resize(static_cast<std::size_t>(count(w[1], kMaxStsDefinitions, "TOTAL_EPS")));
      total_eps_ = true;
    } else if (key == "TOTAL_MSGS") {
      need(w, 2);
      defs_.message_sizes.assign(static_cast<std::size_t>(count(w[1], kMaxStsDefinitions, "TOTAL_MSGS")), 0);
    } else if (key == "TOTAL_EVENTS") {
      need(w, 2);
      total_events_ = count(w[1], kMaxStsDefinitions, "TOTAL_EVENTS");
    } else if (key == "TOTAL_PAPI_EVENTS") {
      need(w, 2);
      defs_.papi_events = static_cast<int>(count(w[1], kMaxPapiEvents, "TOTAL_PAPI_EVENTS"));
    } else if (key == "CHARE") {
      need(w, 3);
      if (!total_chares_) fail("CHARE before TOTAL_CHARES");
      auto id = index(w[1], defs_.chares.size(), "CHARE id", "TOTAL_CHARES");
      StsChare& c = defs_.chares[id];
      // 11.0: CHARE id "name" dims; 7.0: CHARE id name (no dimensions).
      if (w.size() >= 4 && w[2].front() == '"') {
        c.name = std::string(rest_between(line, w[2].data(), w.back().data()));
        c.dimensions = static_cast<int>(integer(w.back(), "CHARE dimensions"));
        if (c.dimensions < -1 || c.dimensions > 6) fail("CHARE dimensions out of range (-1..6)");
      } else {
        c.name = std::string(rest_after(line, 2));
        c.dimensions = -1;
      }
      c.defined = true;
    } else if (key == "ENTRY") {
      need(w, 6);
      if (!total_eps_) fail("ENTRY before TOTAL_EPS");
      auto id = index(w[2], defs_.entries.size(), "ENTRY id", "TOTAL_EPS");
      StsEntry& e = defs_.entries[id];
      // The name may hold spaces (7.0 writes it unquoted): the last two words
      // are the chare type and the message type.
      e.chare = static_cast<int>(integer(w[w.size() - 2], "ENTRY chare"));
      e.message = static_cast<int>(integer(w[w.size() - 1], "ENTRY message"));
      e.name = std::string(strip_quotes(rest_between(line, w[3].data(), w[w.size() - 2].data())));
      e.defined = true;
    } else if (key == "MESSAGE") {
      need(w, 3);
      auto id = index(w[1], defs_.message_sizes.size(), "MESSAGE id", "TOTAL_MSGS");
      defs_.message_sizes[id] = integer(w[2], "MESSAGE size");
    } else if (key == "EVENT") {
      need(w, 2);
      defs_.user_events.push_back({static_cast<int>(integer(w[1], "EVENT id")), std::string(rest_after(line, 2))});
      if (static_cast<std::int64_t>(defs_.user_events.size()) > kMaxStsDefinitions) fail("too many EVENT lines");
    } else if (key == "STAT") {
      need(w, 2);
      defs_.user_stats.push_back({static_cast<int>(integer(w[1], "STAT id")), std::string(rest_after(line, 2))});
      if (static_cast<std::int64_t>(defs_.user_stats.size()) > kMaxStsDefinitions) fail("too many STAT lines");
    }
    // Other keywords (PROJECTIONS_ID, MACHINE details, SMPMODE, USERNAME,
    // TIMESTAMP, TOTAL_PHASES, TOTAL_FUNCTIONS, FUNCTION, PAPI_EVENT, END, ...)
    // describe the run but define nothing weft stores.
  }

  void finish() {
    if (defs_.pes == 0) throw Error(defs_.path, "no PROCESSORS line (not a Projections .sts file?)");
    if (!total_chares_ || !total_eps_) throw Error(defs_.path, "no TOTAL_CHARES or TOTAL_EPS line");
    for (std::size_t i = 0; i < defs_.entries.size(); ++i) {
      const StsEntry& e = defs_.entries[i];
      if (!e.defined) continue;
      if (e.chare < 0 || static_cast<std::size_t>(e.chare) >= defs_.chares.size())
        throw Error(defs_.path, "ENTRY " + std::to_string(i) + " names chare type " + std::to_string(e.chare) +
                                    " beyond TOTAL_CHARES " + std::to_string(defs_.chares.size()));
    }
    if (total_events_ >= 0 && static_cast<std::int64_t>(defs_.user_events.size()) > total_events_)
      throw Error(defs_.path, std::to_string(defs_.user_events.size()) + " EVENT lines but TOTAL_EVENTS " +
                                  std::to_string(total_events_));
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(defs_.path, "line " + std::to_string(line_no_) + ": " + what);
  }
  void need(const std::vector<std::string_view>& w, std::size_t n) const {
    if (w.size() < n) fail(std::string(w[0]) + " line has too few fields");
  }
  std::int64_t integer(std::string_view s, const char* what) const {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) fail(std::string(what) + " is not an integer: '" + std::string(s.substr(0, 40)) + "'");
    return v;
  }
  std::int64_t count(std::string_view s, std::int64_t limit, const char* what) const {
    std::int64_t v = integer(s, what);
    if (v < 0 || v > limit)
      fail(std::string(what) + " " + std::to_string(v) + " is out of range (0.." + std::to_string(limit) + ")");
    return v;
  }
  std::size_t index(std::string_view s, std::size_t size, const char* what, const char* total) const {
    std::int64_t v = integer(s, what);
    if (v < 0 || static_cast<std::uint64_t>(v) >= size)
      fail(std::string(what) + " " + std::to_string(v) + " is beyond " + total + " " + std::to_string(size));
    return static_cast<std::size_t>(v);
  }
  // The text from word `first` up to (not including) word `stop`, trimmed.
  static std::string_view rest_between(std::string_view line, const char* first, const char* stop) {
    std::string_view s(first, static_cast<std::size_t>(stop - first));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    (void)line;
    return strip_quotes(s);
  }

  StsDefinitions& defs_;
  std::int64_t line_no_ = 0;
  bool total_chares_ = false;
  bool total_eps_ = false;
  std::int64_t total_events_ = -1;
};

}  // namespace

int StsDefinitions::index_fields(int entry) const {
  if (entry < 0 || static_cast<std::size_t>(entry) >= entries.size()) return 4;
  int chare = entries[static_cast<std::size_t>(entry)].chare;
  if (chare < 0 || static_cast<std::size_t>(chare) >= chares.size()) return 4;
  int dims = chares[static_cast<std::size_t>(chare)].dimensions;
  return dims >= 1 ? dims : 4;
}

std::string StsDefinitions::entry_display_name(int entry) const {
  if (entry < 0 || static_cast<std::size_t>(entry) >= entries.size() || !entries[static_cast<std::size_t>(entry)].defined)
    return "entry " + std::to_string(entry);
  const StsEntry& e = entries[static_cast<std::size_t>(entry)];
  return chares[static_cast<std::size_t>(e.chare)].name + "::" + e.name;
}

const std::string* StsDefinitions::user_event_name(int id) const {
  for (const StsUserEvent& e : user_events)
    if (e.id == id) return &e.name;
  return nullptr;
}

StsDefinitions read_sts(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw Error(path, "no such file");
  if (!S_ISREG(st.st_mode)) throw Error(path, "not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, std::string("cannot open: ") + std::strerror(errno));
  StsDefinitions defs;
  defs.path = path;
  StsParser parser(defs);
  std::string line;
  std::int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.size() > (1u << 20)) throw Error(path, "line " + std::to_string(line_no) + " is longer than 1 MiB");
    parser.parse_line(line, line_no);
  }
  if (in.bad()) throw Error(path, "read error");
  parser.finish();
  return defs;
}

std::string pe_log_path(const std::string& sts_path, std::int64_t pe) {
  std::string stem = sts_path.size() > 4 && sts_path.compare(sts_path.size() - 4, 4, ".sts") == 0
                         ? sts_path.substr(0, sts_path.size() - 4)
                         : sts_path;
  std::string base = stem + "." + std::to_string(pe) + ".log";
  struct stat st {};
  if (stat((base + ".gz").c_str(), &st) == 0) return base + ".gz";
  if (stat(base.c_str(), &st) == 0) return base;
  return base + ".gz";
}

}  // namespace weft::db
