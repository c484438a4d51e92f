#include "otf2/otf2_definitions.h"

#include <algorithm>
#include <array>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "common/error.h"

namespace weft::db {
namespace {

// Definitions arrive with string references; strings are resolved after the
// whole file is read so that the order of records does not matter.
struct DefinitionReadState {
  Otf2Definitions defs;
  bool has_clock = false;
  std::unordered_map<std::uint32_t, std::string> strings;
  std::vector<std::uint32_t> location_names, group_names, region_names, comm_names;
};

DefinitionReadState& state_of(void* user_data) {
  return *static_cast<DefinitionReadState*>(user_data);
}

OTF2_CallbackCode on_clock(void* user, uint64_t resolution, uint64_t offset, uint64_t length,
                           uint64_t) {
  auto& s = state_of(user);
  s.defs.timer_resolution = resolution;
  s.defs.global_offset = offset;
  s.defs.trace_length = length;
  s.has_clock = true;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_string(void* user, OTF2_StringRef ref, const char* text) {
  state_of(user).strings[ref] = text ? text : "";
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_location(void* user, OTF2_LocationRef ref, OTF2_StringRef name,
                              OTF2_LocationType type, uint64_t events,
                              OTF2_LocationGroupRef group) {
  auto& s = state_of(user);
  s.defs.locations.push_back({ref, "", static_cast<int>(type), events, group});
  s.location_names.push_back(name);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_location_group(void* user, OTF2_LocationGroupRef ref, OTF2_StringRef name,
                                    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef,
                                    OTF2_LocationGroupRef) {
  auto& s = state_of(user);
  s.defs.location_groups.push_back({ref, "", static_cast<int>(type)});
  s.group_names.push_back(name);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_region(void* user, OTF2_RegionRef ref, OTF2_StringRef name,
                            OTF2_StringRef canonical, OTF2_StringRef, OTF2_RegionRole role,
                            OTF2_Paradigm paradigm, OTF2_RegionFlag, OTF2_StringRef, uint32_t,
                            uint32_t) {
  auto& s = state_of(user);
  s.defs.regions.push_back({ref, "", static_cast<int>(role), static_cast<int>(paradigm)});
  s.region_names.push_back(canonical != OTF2_UNDEFINED_STRING ? canonical : name);
  // Keep the plain name as a fallback for an empty canonical name.
  s.region_names.push_back(name);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_group(void* user, OTF2_GroupRef ref, OTF2_StringRef, OTF2_GroupType type,
                           OTF2_Paradigm paradigm, OTF2_GroupFlag, uint32_t count,
                           const uint64_t* members) {
  auto& s = state_of(user);
  s.defs.groups.push_back({ref, static_cast<int>(type), static_cast<int>(paradigm),
                           std::vector<std::uint64_t>(members, members + count)});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_comm(void* user, OTF2_CommRef ref, OTF2_StringRef name, OTF2_GroupRef group,
                          OTF2_CommRef parent, OTF2_CommFlag) {
  auto& s = state_of(user);
  s.defs.comms.push_back({ref, "", group, parent});
  s.comm_names.push_back(name);
  return OTF2_CALLBACK_SUCCESS;
}

std::string resolve(const DefinitionReadState& s, std::uint32_t ref) {
  auto it = s.strings.find(ref);
  return it == s.strings.end() ? std::string() : it->second;
}

void resolve_names(DefinitionReadState& s) {
  for (size_t i = 0; i < s.defs.locations.size(); ++i)
    s.defs.locations[i].name = resolve(s, s.location_names[i]);
  for (size_t i = 0; i < s.defs.location_groups.size(); ++i)
    s.defs.location_groups[i].name = resolve(s, s.group_names[i]);
  for (size_t i = 0; i < s.defs.regions.size(); ++i) {
    std::string name = resolve(s, s.region_names[2 * i]);
    if (name.empty()) name = resolve(s, s.region_names[2 * i + 1]);
    s.defs.regions[i].name = name;
  }
  for (size_t i = 0; i < s.defs.comms.size(); ++i)
    s.defs.comms[i].name = resolve(s, s.comm_names[i]);
}

struct CallbacksDeleter {
  void operator()(OTF2_GlobalDefReaderCallbacks* c) const { OTF2_GlobalDefReaderCallbacks_Delete(c); }
};

}  // namespace

Otf2Definitions read_global_definitions(const Otf2Archive& archive) {
  OTF2_Reader* reader = archive.reader();
  std::string def_path = archive.anchor_path();
  if (def_path.size() > 5 && def_path.compare(def_path.size() - 5, 5, ".otf2") == 0)
    def_path = def_path.substr(0, def_path.size() - 5) + ".def";

  take_last_otf2_error();
  OTF2_GlobalDefReader* def_reader = OTF2_Reader_GetGlobalDefReader(reader);
  if (!def_reader) {
    std::string why = take_last_otf2_error();
    throw Error(def_path, "cannot open the global definitions" + (why.empty() ? "" : ": " + why));
  }
  std::unique_ptr<OTF2_GlobalDefReaderCallbacks, CallbacksDeleter> callbacks(
      OTF2_GlobalDefReaderCallbacks_New());
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(callbacks.get(), on_clock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(callbacks.get(), on_string);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks.get(), on_location);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(callbacks.get(), on_location_group);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(callbacks.get(), on_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(callbacks.get(), on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(callbacks.get(), on_comm);

  DefinitionReadState state;
  archive.check(OTF2_Reader_RegisterGlobalDefCallbacks(reader, def_reader, callbacks.get(), &state),
                def_path, "cannot read the global definitions");
  uint64_t read = 0;
  OTF2_ErrorCode code = OTF2_Reader_ReadAllGlobalDefinitions(reader, def_reader, &read);
  OTF2_Reader_CloseGlobalDefReader(reader, def_reader);
  archive.check(code, def_path, "damaged global definitions");
  if (!state.has_clock || state.defs.timer_resolution == 0)
    throw Error(def_path, "damaged global definitions: no clock properties");
  resolve_names(state);
  return std::move(state.defs);
}

std::string paradigm_name(int paradigm) {
  static constexpr std::array<std::string_view, 25> kNames{
      "unknown",  "user",     "compiler",  "openmp",    "mpi",      "cuda",     "measurement_system",
      "pthread",  "hmpp",     "ompss",     "hardware",  "gaspi",    "upc",      "shmem",
      "winthread", "qtthread", "acethread", "tbbthread", "openacc",  "opencl",   "mtapi",
      "sampling", "none",     "hip",       "kokkos"};
  if (paradigm >= 0 && paradigm < static_cast<int>(kNames.size()))
    return std::string(kNames[static_cast<size_t>(paradigm)]);
  return "unknown";
}

std::string region_role_name(int role) {
  static constexpr std::array<std::string_view, 39> kNames{
      "unknown",        "function",         "wrapper",         "loop",
      "code",           "parallel",         "sections",        "section",
      "workshare",      "single",           "single_sblock",   "master",
      "critical",       "critical_sblock",  "atomic",          "barrier",
      "implicit_barrier", "flush",          "ordered",         "ordered_sblock",
      "task",           "task_create",      "task_wait",       "coll_one2all",
      "coll_all2one",   "coll_all2all",     "coll_other",      "file_io",
      "point2point",    "rma",              "data_transfer",   "artificial",
      "thread_create",  "thread_wait",      "task_untied",     "allocate",
      "deallocate",     "reallocate",       "file_io_metadata"};
  if (role >= 0 && role < static_cast<int>(kNames.size()))
    return std::string(kNames[static_cast<size_t>(role)]);
  return "unknown(" + std::to_string(role) + ")";
}

}  // namespace weft::db
