#pragma once
// Reads the events of one location with its own local event reader: open,
// read, close. The importer and the decode-only benchmark call this location
// by location, never all at once: OTF2's merged global reader and pre-opened
// readers for thousands of locations are 30x slower and use gigabytes
// (../shared/DESIGN.md).
#include <cstdint>
#include <functional>

#include "otf2/otf2_archive.h"

namespace weft::db {

// Records per ReadLocalEvents call: the granularity of progress reports.
constexpr std::uint64_t kRecordsPerChunk = 65536;

// Must be called once before the first read_location_events: selects the
// locations and opens the definition and event files.
void open_location_files(const Otf2Archive& archive, const std::uint64_t* locations, size_t count);
void close_location_files(const Otf2Archive& archive);

// Reads the location's local definitions (mapping tables, clock offsets) and
// then all its events through `callbacks`. After every chunk of records,
// `after_chunk(records_so_far)` is called; returning false stops the read
// (a callback found bad data). Returns the number of records read, which counts
// every event record of every type, exactly as otf2-print does.
std::uint64_t read_location_events(const Otf2Archive& archive, std::uint64_t location,
                                   const OTF2_EvtReaderCallbacks* callbacks, void* user_data,
                                   const std::function<bool(std::uint64_t)>& after_chunk);

}  // namespace weft::db
