#pragma once
// An output file that appears complete or not at all.
//
// The importer writes into "OUT.tmp-XXXXXX" (random, O_EXCL) in the output's own
// directory, so that the final rename is atomic (same file system), and renames
// it over OUT only in commit(). Until then nothing at OUT changes: with --force
// the previous OUT stays intact until the new one is complete.
//
// The temporary file is removed however the writer ends:
// - an error: the destructor unlinks it;
// - SIGINT, SIGTERM, SIGHUP: a handler unlinks it, prints one line and
//   re-raises the signal (the exit status still says "interrupted");
// - SIGKILL, a crash or the OOM killer, which no handler sees: a small guardian
//   process, forked when the temporary is created, waits on a pipe whose write
//   end only the writer holds. The kernel closes it when the writer dies in any
//   way; the guardian then unlinks the temporary (and SQLite's side files of
//   it) unless the writer reported the commit first. The guardian sits in its
//   own process group, so a signal sent to the writer's group does not kill it.
// Only a power cut or a kernel crash can leave an orphan "OUT.tmp-*" behind.
//
// commit() syncs the temporary to the disk before the rename and the
// directory after it: a power cut just after a successful commit still finds
// the whole new OUT (or, before the rename, the old one), never a file that
// was renamed before its data were written.
#include <sys/types.h>

#include <cstdint>
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
  // Syncs the temporary file to the disk and renames it over the output
  // (then syncs the directory). The caller must have closed every handle on
  // temp_path() first. Throws weft::Error, the output untouched, when the
  // data cannot be written (a full disk, an I/O error).
  void commit();

 private:
  void start_guardian();
  void release_guardian(char verdict);

  std::string output_path_;
  std::string temp_path_;
  bool committed_ = false;
  bool signal_armed_ = false;
  int guardian_fd_ = -1;  // write end of the guardian's pipe
  pid_t guardian_pid_ = -1;
};

// fsync of `path` opened with `flags` (O_RDONLY for a file, with O_DIRECTORY
// for a directory): a file's data and size, or a directory's entries, on the
// disk. The errno, 0 when they are there.
int sync_to_disk(const std::string& path, int flags);

// The file and directory syncs commit() has made so far in this process (for tests).
std::int64_t atomic_output_disk_syncs();

// Text for a failed write's errno: "disk full" for ENOSPC and EDQUOT, so
// that every writer reports a full disk in the same words.
std::string write_error_text(int error_number);

}  // namespace weft::db
