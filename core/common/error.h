#pragma once
// The one error type weft throws for bad input or a failed operation.
//
// Every message is a single line that names the file (when there is one) and the
// problem, e.g. "traces/0.evt: truncated event chunk". The CLI prints it after
// "weft: " and exits with status 2; nothing else is printed for the failure.
#include <stdexcept>
#include <string>

namespace weft {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  // "PATH: problem"
  Error(const std::string& path, const std::string& problem)
      : std::runtime_error(path.empty() ? problem : path + ": " + problem) {}
};

}  // namespace weft
