#include "otf2/otf2_location_reader.h"

#include <sys/stat.h>

#include "common/error.h"

namespace weft::db {
namespace {

bool file_exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

// Local definitions hold the mapping from the location's own references to the
// global ones and its clock corrections; OTF2 applies them to the events read
// afterwards, so they must be read first. A location without a .def file has
// no mappings (OTF2 allows that).
void read_local_definitions(const Otf2Archive& archive, std::uint64_t location) {
  std::string def_path = archive.location_file(location, ".def");
  if (!file_exists(def_path)) return;
  OTF2_Reader* reader = archive.reader();
  take_last_otf2_error();
  OTF2_DefReader* def_reader = OTF2_Reader_GetDefReader(reader, location);
  if (!def_reader) {
    std::string why = take_last_otf2_error();
    throw Error(def_path, "cannot open local definitions" + (why.empty() ? "" : ": " + why));
  }
  uint64_t read = 0;
  OTF2_ErrorCode code = OTF2_Reader_ReadAllLocalDefinitions(reader, def_reader, &read);
  OTF2_Reader_CloseDefReader(reader, def_reader);
  archive.check(code, def_path, "damaged local definitions");
}

}  // namespace

void open_location_files(const Otf2Archive& archive, const std::uint64_t* locations, size_t count) {
  OTF2_Reader* reader = archive.reader();
  for (size_t i = 0; i < count; ++i)
    archive.check(OTF2_Reader_SelectLocation(reader, locations[i]), "cannot select location " +
                                                                         std::to_string(locations[i]));
  archive.check(OTF2_Reader_OpenDefFiles(reader), "cannot open the local definition files");
  archive.check(OTF2_Reader_OpenEvtFiles(reader), "cannot open the event files");
}

void close_location_files(const Otf2Archive& archive) {
  // Errors on close are not interesting once everything was read.
  OTF2_Reader_CloseEvtFiles(archive.reader());
  OTF2_Reader_CloseDefFiles(archive.reader());
}

std::uint64_t read_location_events(const Otf2Archive& archive, std::uint64_t location,
                                   const OTF2_EvtReaderCallbacks* callbacks, void* user_data,
                                   const std::function<bool(std::uint64_t)>& after_chunk) {
  read_local_definitions(archive, location);
  std::string evt_path = archive.location_file(location, ".evt");
  OTF2_Reader* reader = archive.reader();
  take_last_otf2_error();
  OTF2_EvtReader* evt_reader = OTF2_Reader_GetEvtReader(reader, location);
  if (!evt_reader) {
    std::string why = take_last_otf2_error();
    throw Error(evt_path, "cannot open events" + (why.empty() ? "" : ": " + why));
  }
  struct CloseReader {
    OTF2_Reader* reader;
    OTF2_EvtReader* evt;
    ~CloseReader() { OTF2_Reader_CloseEvtReader(reader, evt); }
  } closer{reader, evt_reader};

  archive.check(OTF2_Reader_RegisterEvtCallbacks(reader, evt_reader, callbacks, user_data),
                evt_path, "cannot register event callbacks");
  std::uint64_t total = 0;
  for (;;) {
    uint64_t read = 0;
    OTF2_ErrorCode code = OTF2_Reader_ReadLocalEvents(reader, evt_reader, kRecordsPerChunk, &read);
    total += read;
    // An interrupt comes from our own callbacks; the caller knows why.
    if (code == OTF2_ERROR_INTERRUPTED_BY_CALLBACK) {
      after_chunk(total);
      return total;
    }
    archive.check(code, evt_path, "damaged event file");
    if (!after_chunk(total) || read < kRecordsPerChunk) break;
  }
  return total;
}

}  // namespace weft::db
