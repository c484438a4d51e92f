#pragma once
// An open OTF2 archive: RAII over OTF2_Reader plus error handling.
//
// OTF2 prints its errors to stderr by default. We install an error callback
// that keeps the last message instead, so that a failing call becomes one
// weft::Error line naming the file and OTF2's own explanation.
#include <otf2/otf2.h>

#include <cstdint>
#include <string>

namespace weft::db {

class Otf2Archive {
 public:
  // Opens the anchor file. Throws weft::Error for a missing file, a file that
  // is not an OTF2 anchor, or an archive OTF2 cannot read.
  explicit Otf2Archive(const std::string& anchor_path);
  ~Otf2Archive();
  Otf2Archive(const Otf2Archive&) = delete;
  Otf2Archive& operator=(const Otf2Archive&) = delete;

  OTF2_Reader* reader() const { return reader_; }
  const std::string& anchor_path() const { return anchor_path_; }
  // The directory holding the per-location files ("<anchor without .otf2>/").
  std::string location_file(std::uint64_t location, const char* extension) const;
  std::uint64_t location_count() const { return location_count_; }
  std::string creator() const;

  // Throws weft::Error("<path>: <what>: <OTF2's message>") unless code is OTF2_SUCCESS.
  void check(OTF2_ErrorCode code, const std::string& what) const;
  void check(OTF2_ErrorCode code, const std::string& path, const std::string& what) const;

 private:
  std::string anchor_path_;
  OTF2_Reader* reader_ = nullptr;
  std::uint64_t location_count_ = 0;
};

// Installs weft's OTF2 error callback (idempotent). Called by Otf2Archive.
void install_otf2_error_capture();
// The last error OTF2 reported through the callback, then clears it.
std::string take_last_otf2_error();

}  // namespace weft::db
