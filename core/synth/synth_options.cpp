#include "synth/synth_options.h"

#include <charconv>
#include <cmath>

#include "common/error.h"

namespace weft::synth {
namespace {

std::string all_pattern_names() {
  std::string names;
  for (std::string_view name : kPatternNames) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

// Parses the whole of `text` as an integer; false on junk, sign errors or overflow.
template <typename Int>
bool parse_whole_integer(std::string_view text, Int& value) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

bool parse_whole_double(std::string_view text, double& value) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(value);
}

}  // namespace

Pattern parse_pattern(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kPatternNames); ++i)
    if (kPatternNames[i] == name) return static_cast<Pattern>(i);
  throw Error("unknown pattern '" + std::string(name) + "' (expected one of: " +
              all_pattern_names() + ")");
}

std::string_view pattern_name(Pattern pattern) {
  return kPatternNames[static_cast<std::size_t>(pattern)];
}

std::int32_t min_procs(Pattern pattern) {
  return pattern == Pattern::Ring || pattern == Pattern::Pingpong ? 2 : 1;
}

Delay parse_delay(std::string_view text) {
  const std::string shown = "malformed --delay '" + std::string(text) + "'";
  std::size_t first = text.find(':');
  std::size_t second = first == std::string_view::npos ? first : text.find(':', first + 1);
  if (second == std::string_view::npos)
    throw Error(shown + " (expected RANK:ITER:FACTOR, e.g. 3:10:2.5)");
  Delay delay;
  if (!parse_whole_integer(text.substr(0, first), delay.rank) || delay.rank < 0)
    throw Error(shown + " (RANK must be a non-negative integer)");
  if (!parse_whole_integer(text.substr(first + 1, second - first - 1), delay.iteration) ||
      delay.iteration < 0)
    throw Error(shown + " (ITER must be a non-negative integer)");
  if (!parse_whole_double(text.substr(second + 1), delay.factor) || delay.factor <= 0)
    throw Error(shown + " (FACTOR must be a positive number)");
  return delay;
}

void validate(const SynthOptions& options) {
  const std::string pattern(pattern_name(options.pattern));
  if (options.procs < 1 || options.procs > kMaxProcs)
    throw Error("-n " + std::to_string(options.procs) + " is out of range (1.." +
                std::to_string(kMaxProcs) + ")");
  if (options.procs < min_procs(options.pattern))
    throw Error("pattern " + pattern + " needs at least " +
                std::to_string(min_procs(options.pattern)) + " processes (-n)");
  if (options.iterations < 1)
    throw Error("-i " + std::to_string(options.iterations) + " is out of range (at least 1)");
  if (!(options.jitter >= 0.0 && options.jitter <= 1.0))
    throw Error("--jitter must be a fraction between 0 and 1");
  for (const Delay& delay : options.delays) {
    if (delay.rank >= options.procs)
      throw Error("--delay rank " + std::to_string(delay.rank) + " is not below -n " +
                  std::to_string(options.procs));
    if (delay.iteration >= options.iterations)
      throw Error("--delay iteration " + std::to_string(delay.iteration) + " is not below -i " +
                  std::to_string(options.iterations));
    if (!(delay.factor > 0.0) || !std::isfinite(delay.factor))
      throw Error("--delay factor must be a positive number");
  }
}

}  // namespace weft::synth
