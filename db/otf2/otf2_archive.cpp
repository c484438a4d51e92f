#include "otf2/otf2_archive.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

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

// OTF2_Reader_Open trusts counts in the anchor file: a damaged one made it
// allocate and touch more than a GiB (found by the fuzz loop). OTF2 is not
// ours to fix, so the anchor is first opened in a forked child whose address
// space is capped at its current size plus kAnchorProbeBytes. The child
// reports OTF2's error text (if any) through a pipe; the parent opens the
// archive itself only when the child could. A child that dies (OTF2 not
// checking a failed allocation) means a damaged anchor too.
constexpr std::uint64_t kAnchorProbeBytes = std::uint64_t{256} << 20;

std::uint64_t current_address_space() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  unsigned long long pages = 0;
  if (f) {
    if (std::fscanf(f, "%llu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

// Empty when the anchor opens within the cap; else why it does not.
std::string probe_anchor(const std::string& anchor_path) {
  const std::uint64_t used = current_address_space();
  if (used == 0) return "";  // no /proc: no probe
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return "";
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return "";
  }
  if (pid == 0) {
    close(fds[0]);
    // OTF2 (or a sanitizer's allocator) may print about the failure: the
    // parent's one-line error is what the user sees.
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, STDERR_FILENO);
    rlimit cap{used + kAnchorProbeBytes, used + kAnchorProbeBytes};
    setrlimit(RLIMIT_AS, &cap);
    take_last_otf2_error();
    OTF2_Reader* reader = OTF2_Reader_Open(anchor_path.c_str());
    std::uint64_t locations = 0;
    std::string why;
    if (!reader) {
      why = take_last_otf2_error();
      if (why.empty()) why = "cannot be opened";
    } else if (OTF2_Reader_SetSerialCollectiveCallbacks(reader) != OTF2_SUCCESS ||
               OTF2_Reader_GetNumberOfLocations(reader, &locations) != OTF2_SUCCESS) {
      why = take_last_otf2_error();
      if (why.empty()) why = "cannot be read";
    }
    ssize_t ignored = write(fds[1], why.data(), why.size());
    (void)ignored;
    _exit(0);  // no destructors, no atexit handlers of the parent's
  }
  close(fds[1]);
  std::string why;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) != 0) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    why.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "damaged (reading it needs more than " + std::to_string(kAnchorProbeBytes >> 20) + " MiB)";
  return why;
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
  std::string damage = probe_anchor(anchor_path);
  if (!damage.empty()) throw Error(anchor_path, "not an OTF2 anchor file: " + damage);
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
