#pragma once
// Writes a simulated Charm++ run (core/synth/charm/charm_sim.h) as a
// Projections run in the format of Charm++ 7.x traces (VERSION 11.0, as in
// ../shared/traces): DIR/PROG.sts and one gzip'd DIR/PROG.N.log.gz per PE,
// PROG being the pattern name. Same options → byte-identical files.
#include <cstdint>
#include <string>

#include "synth/charm/charm_sim.h"

namespace weft::db {

struct ProjectionsSynthInfo {
  std::string sts_path;
  std::uint64_t records = 0;  // log records written, all PEs
  std::int64_t executions = 0;
  std::int64_t messages = 0;
  std::int64_t end_us = 0;
};

// Refuses, with weft::Error, to replace an existing DIR/PROG.sts or PE log
// unless `overwrite`. `gzip_level` 1..9 (the default, 6, is zlib's and what
// Charm++ uses).
ProjectionsSynthInfo write_projections_run(const synth::CharmSynthOptions& options, const std::string& out_dir,
                                           bool overwrite, int gzip_level = 6);

// The text of PROG.sts for `run` (exposed for the tests).
std::string sts_text(const synth::CharmRun& run, std::int32_t pes);

}  // namespace weft::db
