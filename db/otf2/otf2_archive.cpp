#include "otf2/otf2_archive.h"

#include <sys/stat.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "common/error.h"

namespace weft::db {
namespace {

// OTF2's callback is process-wide; the message is per thread so that two
// imports on two threads do not mix their errors.
thread_local std::string t_last_otf2_error;

extern "C" OTF2_ErrorCode capture_otf2_error(void*, const char*, uint64_t, const char*,
                                             OTF2_ErrorCode code, const char* format,
                                             va_list args) {
  char message[512];
  std::vsnprintf(message, sizeof message, format ? format : "", args);
  std::string text = OTF2_Error_GetDescription(code);
  if (message[0]) text += std::string(" (") + message + ")";
  t_last_otf2_error = text;
  return code;
}

}  // namespace

void install_otf2_error_capture() {
  static std::once_flag once;
  std::call_once(once, [] { OTF2_Error_RegisterCallback(capture_otf2_error, nullptr); });
}

std::string take_last_otf2_error() {
  std::string text;
  text.swap(t_last_otf2_error);
  return text;
}

Otf2Archive::Otf2Archive(const std::string& anchor_path) : anchor_path_(anchor_path) {
  install_otf2_error_capture();
  struct stat st {};
  if (stat(anchor_path.c_str(), &st) != 0) throw Error(anchor_path, "no such file");
  if (!S_ISREG(st.st_mode)) throw Error(anchor_path, "not an OTF2 anchor file (not a regular file)");
  if (st.st_size == 0) throw Error(anchor_path, "not an OTF2 anchor file (empty file)");
  take_last_otf2_error();
  reader_ = OTF2_Reader_Open(anchor_path.c_str());
  if (!reader_) {
    std::string why = take_last_otf2_error();
    throw Error(anchor_path, "not an OTF2 anchor file" + (why.empty() ? "" : ": " + why));
  }
  // Serial reading: no MPI collectives inside OTF2 (must precede any read).
  OTF2_ErrorCode code = OTF2_Reader_SetSerialCollectiveCallbacks(reader_);
  if (code == OTF2_SUCCESS) code = OTF2_Reader_GetNumberOfLocations(reader_, &location_count_);
  if (code != OTF2_SUCCESS) {
    std::string why = take_last_otf2_error();
    OTF2_Reader_Close(reader_);
    reader_ = nullptr;
    throw Error(anchor_path, "cannot read the OTF2 anchor: " +
                                 (why.empty() ? OTF2_Error_GetDescription(code) : why));
  }
}

Otf2Archive::~Otf2Archive() {
  if (reader_) OTF2_Reader_Close(reader_);
}

std::string Otf2Archive::location_file(std::uint64_t location, const char* extension) const {
  std::string base = anchor_path_;
  if (base.size() > 5 && base.compare(base.size() - 5, 5, ".otf2") == 0)
    base.resize(base.size() - 5);
  return base + "/" + std::to_string(location) + extension;
}

std::string Otf2Archive::creator() const {
  char* creator = nullptr;
  if (OTF2_Reader_GetCreator(reader_, &creator) != OTF2_SUCCESS || !creator) return "";
  std::string text = creator;
  free(creator);
  return text;
}

void Otf2Archive::check(OTF2_ErrorCode code, const std::string& what) const {
  check(code, anchor_path_, what);
}

void Otf2Archive::check(OTF2_ErrorCode code, const std::string& path,
                        const std::string& what) const {
  if (code == OTF2_SUCCESS) return;
  std::string why = take_last_otf2_error();
  throw Error(path, what + ": " + (why.empty() ? OTF2_Error_GetDescription(code) : why));
}

}  // namespace weft::db
