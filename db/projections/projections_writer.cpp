#include "projections/projections_writer.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "common/release_memory.h"
#include "store/atomic_output.h"

namespace weft::db {
namespace fs = std::filesystem;
namespace {

// Appends the decimal text of v: the hot loop of the writer, so no printf.
void put_int(std::string& out, std::int64_t v) {
  char buf[24];
  char* end = buf + sizeof(buf);
  char* p = end;
  const bool negative = v < 0;
  std::uint64_t u = negative ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  do {
    *--p = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u);
  if (negative) *--p = '-';
  out.append(p, static_cast<std::size_t>(end - p));
}

void fields(std::string& out, std::initializer_list<std::int64_t> values) {
  bool first = true;
  for (std::int64_t v : values) {
    if (!first) out += ' ';
    first = false;
    put_int(out, v);
  }
  out += '\n';
}

// One record as Charm++ 7.x writes it (field layouts: log_reader.h). The
// message type is 2 (FOR_CHARE_MSG) throughout; recvTime and CPU times 0.
void format_record(std::string& out, const synth::SimRecord& r, std::int32_t pe) {
  using namespace synth;
  switch (r.type) {
    case kSimCreation:
      fields(out, {1, 2, r.entry, r.time_us, r.event, r.pe, r.bytes, 0});
      break;
    case kSimCreationBcast:
      fields(out, {20, 2, r.entry, r.time_us, r.event, r.pe, r.bytes, 0, r.a});
      break;
    case kSimBeginProcessing:
      fields(out, {2, 2, r.entry, r.time_us, r.event, r.pe, r.bytes, 0});
      out.pop_back();
      if (r.index_count == 0) {
        out += " 0 0 0 0";
      } else {
        out += ' ';
        put_int(out, r.a);
        if (r.index_count > 1) {
          out += ' ';
          put_int(out, r.b);
        }
      }
      out += " 0\n";
      break;
    case kSimEndProcessing:
      fields(out, {3, 2, r.entry, r.time_us, r.event, r.pe, r.bytes, 0});
      break;
    case kSimBeginComputation:
    case kSimEndComputation:
      fields(out, {r.type, r.time_us});
      break;
    case kSimBeginIdle:
    case kSimEndIdle:
      fields(out, {r.type, r.time_us, pe});
      break;
    case kSimBeginUserPair:
    case kSimEndUserPair:
      fields(out, {r.type, r.entry, r.time_us, r.event, pe, r.b});
      break;
    default:
      throw Error("internal: unknown simulated record type " + std::to_string(r.type));
  }
}

void write_gz(const std::string& path, const std::string& header, const std::vector<synth::SimRecord>& records,
              std::int32_t pe, int level) {
  gzFile f = gzopen(path.c_str(), ("wb" + std::to_string(level)).c_str());
  if (!f) throw Error(path, std::string("cannot write: ") + write_error_text(errno ? errno : ENOMEM));
  gzbuffer(f, 256 * 1024);
  std::string chunk = header;
  auto flush = [&] {
    if (chunk.empty()) return;
    if (gzwrite(f, chunk.data(), static_cast<unsigned>(chunk.size())) != static_cast<int>(chunk.size())) {
      int code = 0;
      std::string why = gzerror(f, &code);
      gzclose(f);
      throw Error(path, "write failed: " + (code == Z_ERRNO ? write_error_text(errno) : why));
    }
    chunk.clear();
  };
  for (const synth::SimRecord& r : records) {
    format_record(chunk, r, pe);
    if (chunk.size() > (1 << 20)) flush();
  }
  flush();
  if (gzclose(f) != Z_OK) throw Error(path, "write failed: " + write_error_text(errno ? errno : EIO));
}

}  // namespace

std::string sts_text(const synth::CharmRun& run, std::int32_t pes) {
  std::string s = "PROJECTIONS_ID \nVERSION 11.0\nTOTAL_PHASES 1\nMACHINE \"weft-synth\"\nPROCESSORS ";
  s += std::to_string(pes) + "\nCHARMVERSION weft-synth\nTOTAL_CHARES " + std::to_string(run.chare_types.size()) +
       "\nTOTAL_EPS " + std::to_string(run.entries.size()) + "\nTOTAL_MSGS 1\nTOTAL_PSEUDOS 0\nTOTAL_EVENTS " +
       std::to_string(run.user_events.size()) + "\n";
  for (std::size_t i = 0; i < run.chare_types.size(); ++i)
    s += "CHARE " + std::to_string(i) + " \"" + run.chare_types[i].name + "\" " +
         std::to_string(run.chare_types[i].dimensions) + "\n";
  for (std::size_t i = 0; i < run.entries.size(); ++i)
    s += "ENTRY CHARE " + std::to_string(i) + " \"" + run.entries[i].name + "\" " +
         std::to_string(run.entries[i].chare_type) + " 0\n";
  s += "MESSAGE 0 0\n";
  for (const synth::CharmUserEvent& e : run.user_events) s += "EVENT " + std::to_string(e.id) + " " + e.name + "\n";
  s += "TOTAL_STATS 0\nEND\n";
  return s;
}

ProjectionsSynthInfo write_projections_run(const synth::CharmSynthOptions& options, const std::string& out_dir,
                                           bool overwrite, int gzip_level) {
  synth::validate(options);
  const std::string prog(synth::charm_pattern_name(options.pattern));
  const fs::path dir(out_dir);
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw Error(out_dir, "exists and is not a directory");
  const fs::path sts = dir / (prog + ".sts");
  auto log_path = [&](std::int32_t pe) { return dir / (prog + "." + std::to_string(pe) + ".log.gz"); };
  if (!overwrite) {
    if (fs::exists(fs::symlink_status(sts, ec))) throw Error(sts.string(), "already exists (use --force to overwrite)");
    if (fs::exists(fs::symlink_status(log_path(0), ec)))
      throw Error(log_path(0).string(), "already exists (use --force to overwrite)");
  }
  fs::create_directories(dir, ec);
  if (ec) throw Error(out_dir, "cannot create directory: " + ec.message());

  synth::CharmRun run = synth::simulate_charm(options);
  ProjectionsSynthInfo info;
  for (std::int32_t pe = 0; pe < options.pes; ++pe) {
    auto& records = run.pe_records[static_cast<std::size_t>(pe)];
    write_gz(log_path(pe).string(), "PROJECTIONS-RECORD " + std::to_string(records.size()) + "\n", records, pe,
             gzip_level);
    info.records += records.size();
    release_memory(records);  // written: give the memory back before the next PE
  }
  // The .sts last: an interrupted synth leaves no .sts that promises logs.
  {
    std::ofstream out(sts, std::ios::binary | std::ios::trunc);
    out << sts_text(run, options.pes);
    out.flush();
    if (!out) throw Error(sts.string(), "write failed: " + write_error_text(errno ? errno : EIO));
  }
  info.sts_path = sts.string();
  info.executions = run.executions;
  info.messages = run.messages;
  info.end_us = run.end_us;
  return info;
}

}  // namespace weft::db
