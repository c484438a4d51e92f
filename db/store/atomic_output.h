#pragma once
// An output file that appears complete or not at all.
//
// The importer writes into "OUT.tmp-XXXXXX" (mkstemp) in the output's own
// directory, so that the final rename is atomic (same file system), and renames
// it over OUT only in commit(). Destroying an uncommitted AtomicOutput removes
// the temporary file, and so does SIGINT/SIGTERM while one is alive: a failed
// or interrupted import never leaves a half-written run, and with --force the
// previous OUT stays intact until the new one is complete.
#include <string>

namespace weft::db {

class AtomicOutput {
 public:
  // Throws weft::Error if `output_path` exists and `overwrite` is false, or if
  // the temporary file cannot be created.
  AtomicOutput(const std::string& output_path, bool overwrite);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::string& temp_path() const { return temp_path_; }
  const std::string& output_path() const { return output_path_; }
  // Renames the temporary file over the output. The caller must have closed
  // every handle on temp_path() first.
  void commit();

 private:
  std::string output_path_;
  std::string temp_path_;
  bool committed_ = false;
  bool signal_armed_ = false;
};

}  // namespace weft::db
