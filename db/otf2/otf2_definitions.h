#pragma once
// The global definitions of an OTF2 archive that the importer needs, read once
// with the global definition reader into plain vectors.
#include <cstdint>
#include <string>
#include <vector>

#include "otf2/otf2_archive.h"

namespace weft::db {

struct Otf2LocationDef {
  std::uint64_t ref = 0;
  std::string name;
  int type = 0;  // OTF2_LocationType
  std::uint64_t event_count = 0;  // "# Events" of the definition
  std::uint32_t group = 0;        // location group ref
};

struct Otf2LocationGroupDef {
  std::uint32_t ref = 0;
  std::string name;
  int type = 0;  // OTF2_LocationGroupType
};

struct Otf2RegionDef {
  std::uint32_t ref = 0;
  std::string name;  // canonical name when there is one
  int role = 0;      // OTF2_RegionRole, possibly a value newer than our OTF2
  int paradigm = 0;  // OTF2_Paradigm, likewise
};

struct Otf2GroupDef {
  std::uint32_t ref = 0;
  int type = 0;  // OTF2_GroupType
  int paradigm = 0;
  std::vector<std::uint64_t> members;
};

struct Otf2CommDef {
  std::uint32_t ref = 0;
  std::string name;
  std::uint32_t group = 0;
  std::uint32_t parent = 0;  // OTF2_UNDEFINED_COMM when none
};

struct Otf2Definitions {
  std::uint64_t timer_resolution = 0;
  std::uint64_t global_offset = 0;
  std::uint64_t trace_length = 0;
  std::vector<Otf2LocationDef> locations;
  std::vector<Otf2LocationGroupDef> location_groups;
  std::vector<Otf2RegionDef> regions;
  std::vector<Otf2GroupDef> groups;
  std::vector<Otf2CommDef> comms;
};

// Reads the global definitions. Throws weft::Error naming the .def file when
// it is missing or damaged, or when it has no clock properties.
Otf2Definitions read_global_definitions(const Otf2Archive& archive);

// Lower-case names used in the regions table; unknown values give
// "unknown" (paradigm) and "unknown(N)" (role) rather than an error, because
// archives written by newer OTF2 versions use values our library predates.
std::string paradigm_name(int paradigm);
std::string region_role_name(int role);

}  // namespace weft::db
