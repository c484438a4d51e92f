#pragma once
// The decode-only baseline for import benchmarks: the same per-location
// streaming read as the importer (same reader setup, same callbacks
// registered), with callbacks that only count. Import speed is judged against it.
#include <cstdint>
#include <string>

namespace weft::db {

struct DecodeOnlyResult {
  std::uint64_t records = 0;
  std::uint64_t locations = 0;
  double seconds = 0;  // wall time from opening the anchor to the last close
};

DecodeOnlyResult decode_only_otf2(const std::string& anchor_path);

}  // namespace weft::db
