#include "app/headless_options.h"

#include <cmath>
#include <cstdio>

#include "common/error.h"

namespace weft::app {

Size parse_size(const std::string& text) {
  int width = 0;
  int height = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%dx%d%n", &width, &height, &consumed) != 2 ||
      static_cast<std::size_t>(consumed) != text.size())
    throw Error("--size: expected WIDTHxHEIGHT such as 1600x900, got '" + text + "'");
  if (width < 64 || height < 64 || width > 16384 || height > 16384)
    throw Error("--size: " + text + " is outside 64x64 to 16384x16384");
  return {width, height};
}

std::pair<std::string, std::string> split_range(const char* option, const std::string& text,
                                                const char* separators) {
  std::size_t at = text.find_first_of(separators, 1);
  if (at == std::string::npos) return {text, text};
  if (at == 0 || at + 1 >= text.size())
    throw Error(std::string(option) + ": expected A:B, got '" + text + "'");
  return {text.substr(0, at), text.substr(at + 1)};
}

std::int64_t parse_index(const char* option, const std::string& text) {
  long long value = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%lld%n", &value, &consumed) != 1 ||
      static_cast<std::size_t>(consumed) != text.size())
    throw Error(std::string(option) + ": expected a whole number, got '" + text + "'");
  return value;
}

std::pair<std::int64_t, std::int64_t> parse_index_range(const char* option, const std::string& text,
                                                        std::int64_t count) {
  if (count <= 0) throw Error(std::string(option) + ": there is nothing to choose from");
  if (text.empty()) return {0, count - 1};
  auto [a, b] = split_range(option, text, ":-");
  std::int64_t first = parse_index(option, a);
  std::int64_t last = parse_index(option, b);
  if (first < 0 || last < first || last >= count)
    throw Error(std::string(option) + ": " + text + " is not a range within 0:" +
                std::to_string(count - 1));
  return {first, last};
}

TimeNs parse_time_option(const char* option, const std::string& text, TimeNs trace_end_ns) {
  double value = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%lf%n", &value, &consumed) != 1)
    throw Error(std::string(option) + ": expected a time such as 1500000, 250us, 1.5ms or 40%, got '" +
                text + "'");
  std::string unit = text.substr(static_cast<std::size_t>(consumed));
  unit.erase(0, unit.find_first_not_of(' '));
  double scale = 0;
  if (unit.empty() || unit == "ns") scale = 1;
  else if (unit == "us" || unit == "\xc2\xb5s") scale = 1e3;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "s") scale = 1e9;
  else if (unit == "%") scale = static_cast<double>(trace_end_ns) / 100.0;
  else
    throw Error(std::string(option) + ": unknown time unit '" + unit + "' (ns, us, ms, s or %)");
  double ns = value * scale;
  if (!(ns >= 0) || ns > 9e18) throw Error(std::string(option) + ": " + text + " is out of range");
  return static_cast<TimeNs>(std::llround(ns));
}

}  // namespace weft::app
