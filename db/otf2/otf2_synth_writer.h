#pragma once
// Writes the records of the synth simulator (core/synth) as a real OTF2
// archive laid out like Score-P's: DIR/traces.otf2 (anchor), DIR/traces.def
// (global definitions) and DIR/traces/ (one .evt and one .def per location).
//
// Timestamps are ns from the trace start plus kSynthGlobalOffset ticks at a
// 1 GHz timer, so importers must apply the clock properties' global offset.
#include <cstdint>
#include <string>

#include "common/types.h"
#include "synth/synth_options.h"

namespace weft::db {

inline constexpr std::uint64_t kSynthTimerResolution = 1'000'000'000;  // ticks per second
inline constexpr std::uint64_t kSynthGlobalOffset = 1'000'000'000'000;  // ticks at trace time 0
// Ranks whose OTF2 event writers are open at once (see write_synth_archive).
inline constexpr std::int32_t kSynthRanksPerBlock = 256;

struct SynthArchiveInfo {
  std::string anchor_path;   // DIR/traces.otf2
  std::uint64_t records = 0; // OTF2 event records written, all locations
  TimeNs trace_end_ns = 0;   // trace length
};

// Simulates `options` and writes the archive into `out_dir` (created if
// missing). Refuses, with weft::Error, to replace an existing
// DIR/traces.otf2, DIR/traces.def or DIR/traces/ unless `overwrite`, in which
// case exactly those three are removed first. Same options → byte-identical files.
SynthArchiveInfo write_synth_archive(const synth::SynthOptions& options,
                                     const std::string& out_dir, bool overwrite);

}  // namespace weft::db
