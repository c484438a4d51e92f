#pragma once
// Option parsing shared by the headless commands (`weft render`, `weft
// record`, `weft demo`): image sizes, ranges and times with units. Each
// throws weft::Error naming the option and what it expected.
#include <cstdint>
#include <string>
#include <utility>

#include "common/types.h"

namespace weft::app {

struct Size {
  int width;
  int height;
};

// "WIDTHxHEIGHT", each within 64..16384.
Size parse_size(const std::string& text);
// "A:B" -> {A, B}; a single "A" -> {A, A}. `separators` lists what may split them.
std::pair<std::string, std::string> split_range(const char* option, const std::string& text,
                                                const char* separators);
std::int64_t parse_index(const char* option, const std::string& text);
// An inclusive range of whole numbers within [0, count); "" is all of them.
std::pair<std::int64_t, std::int64_t> parse_index_range(const char* option, const std::string& text,
                                                        std::int64_t count);
// A time: ns, or with a unit (ns, us, µs, ms, s), or a share of the run (40%).
TimeNs parse_time_option(const char* option, const std::string& text, TimeNs trace_end_ns);

}  // namespace weft::app
