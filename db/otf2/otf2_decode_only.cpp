#include "otf2/otf2_decode_only.h"

#include <chrono>
#include <memory>
#include <vector>

#include "otf2/otf2_definitions.h"
#include "otf2/otf2_location_reader.h"

namespace weft::db {
namespace {

struct Counter {
  std::uint64_t touched = 0;
};

OTF2_CallbackCode count_region(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* user,
                               OTF2_AttributeList*, OTF2_RegionRef) {
  ++static_cast<Counter*>(user)->touched;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode count_p2p(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* user,
                            OTF2_AttributeList*, uint32_t, OTF2_CommRef, uint32_t, uint64_t) {
  ++static_cast<Counter*>(user)->touched;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode count_ip2p(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* user,
                             OTF2_AttributeList*, uint32_t, OTF2_CommRef, uint32_t, uint64_t,
                             uint64_t) {
  ++static_cast<Counter*>(user)->touched;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode count_request(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* user,
                                OTF2_AttributeList*, uint64_t) {
  ++static_cast<Counter*>(user)->touched;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode count_begin(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* user,
                              OTF2_AttributeList*) {
  ++static_cast<Counter*>(user)->touched;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode count_end(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* user,
                            OTF2_AttributeList*, OTF2_CollectiveOp, OTF2_CommRef, uint32_t,
                            uint64_t, uint64_t) {
  ++static_cast<Counter*>(user)->touched;
  return OTF2_CALLBACK_SUCCESS;
}

}  // namespace

DecodeOnlyResult decode_only_otf2(const std::string& anchor_path) {
  auto start = std::chrono::steady_clock::now();
  Otf2Archive archive(anchor_path);
  Otf2Definitions defs = read_global_definitions(archive);
  std::vector<std::uint64_t> locations;
  for (const Otf2LocationDef& loc : defs.locations) locations.push_back(loc.ref);

  std::unique_ptr<OTF2_EvtReaderCallbacks, void (*)(OTF2_EvtReaderCallbacks*)> cb(
      OTF2_EvtReaderCallbacks_New(), OTF2_EvtReaderCallbacks_Delete);
  OTF2_EvtReaderCallbacks_SetEnterCallback(cb.get(), count_region);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cb.get(), count_region);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb.get(), count_p2p);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb.get(), count_p2p);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb.get(), count_ip2p);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb.get(), count_ip2p);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb.get(), count_request);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb.get(), count_request);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb.get(), count_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb.get(), count_end);

  DecodeOnlyResult result;
  Counter counter;
  open_location_files(archive, locations.data(), locations.size());
  for (std::uint64_t location : locations) {
    result.records += read_location_events(archive, location, cb.get(), &counter,
                                           [](std::uint64_t) { return true; });
    ++result.locations;
  }
  close_location_files(archive);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace weft::db
