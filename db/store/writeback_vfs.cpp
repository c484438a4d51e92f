#include "store/writeback_vfs.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <mutex>
#include <new>

#include "store/background_sync.h"

namespace weft::db {
namespace {

sqlite3_vfs* g_real = nullptr;

// The file as SQLite sees it, followed in memory by the real VFS's file.
// SQLite allocates szOsFile bytes aligned to 8, so neither may need more.
struct WritebackFile {
  sqlite3_file base;
  int fd;                     // a descriptor of our own on the same file, or -1
  EarlyWriteback* writeback;  // of fd, or null
  sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(this) + sizeof(WritebackFile)); }
};

static_assert(alignof(WritebackFile) <= 8 && sizeof(WritebackFile) % 8 == 0,
              "the real file that follows must stay 8-byte aligned");

WritebackFile* self(sqlite3_file* f) { return reinterpret_cast<WritebackFile*>(f); }
sqlite3_file* real(sqlite3_file* f) { return self(f)->real(); }

int wb_close(sqlite3_file* f) {
  WritebackFile* w = self(f);
  delete w->writeback;  // waits for its sync, which uses fd
  w->writeback = nullptr;
  if (w->fd >= 0) close(w->fd);
  return real(f)->pMethods->xClose(real(f));
}

int wb_write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  const int rc = real(f)->pMethods->xWrite(real(f), data, amount, offset);
  // Never throws (no exception may leave this C callback).
  if (rc == SQLITE_OK && self(f)->writeback) self(f)->writeback->wrote(amount);
  return rc;
}

// Everything else goes straight to the real file.
int wb_read(sqlite3_file* f, void* data, int amount, sqlite3_int64 offset) {
  return real(f)->pMethods->xRead(real(f), data, amount, offset);
}
int wb_truncate(sqlite3_file* f, sqlite3_int64 size) { return real(f)->pMethods->xTruncate(real(f), size); }
int wb_sync(sqlite3_file* f, int flags) { return real(f)->pMethods->xSync(real(f), flags); }
int wb_file_size(sqlite3_file* f, sqlite3_int64* size) { return real(f)->pMethods->xFileSize(real(f), size); }
int wb_lock(sqlite3_file* f, int level) { return real(f)->pMethods->xLock(real(f), level); }
int wb_unlock(sqlite3_file* f, int level) { return real(f)->pMethods->xUnlock(real(f), level); }
int wb_check_reserved_lock(sqlite3_file* f, int* out) { return real(f)->pMethods->xCheckReservedLock(real(f), out); }
int wb_file_control(sqlite3_file* f, int op, void* arg) {
  if (op == kSyncWrittenSoonFileControl) {
    if (!self(f)->writeback) return SQLITE_NOTFOUND;
    self(f)->writeback->sync_soon();
    return SQLITE_OK;
  }
  return real(f)->pMethods->xFileControl(real(f), op, arg);
}
int wb_sector_size(sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); }
int wb_device_characteristics(sqlite3_file* f) { return real(f)->pMethods->xDeviceCharacteristics(real(f)); }
int wb_shm_map(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
  return real(f)->pMethods->xShmMap(real(f), region, size, extend, out);
}
int wb_shm_lock(sqlite3_file* f, int offset, int n, int flags) { return real(f)->pMethods->xShmLock(real(f), offset, n, flags); }
void wb_shm_barrier(sqlite3_file* f) { real(f)->pMethods->xShmBarrier(real(f)); }
int wb_shm_unmap(sqlite3_file* f, int delete_flag) { return real(f)->pMethods->xShmUnmap(real(f), delete_flag); }
int wb_fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
  return real(f)->pMethods->xFetch(real(f), offset, amount, out);
}
int wb_unfetch(sqlite3_file* f, sqlite3_int64 offset, void* p) { return real(f)->pMethods->xUnfetch(real(f), offset, p); }

// Version 3 methods; a real file with an older version gets a copy that says so.
constexpr sqlite3_io_methods kMethods = {
    3, wb_close, wb_read, wb_write, wb_truncate, wb_sync, wb_file_size, wb_lock, wb_unlock,
    wb_check_reserved_lock, wb_file_control, wb_sector_size, wb_device_characteristics,
    wb_shm_map, wb_shm_lock, wb_shm_barrier, wb_shm_unmap, wb_fetch, wb_unfetch};
sqlite3_io_methods g_methods_v1, g_methods_v2;

int wb_open(sqlite3_vfs*, const char* name, sqlite3_file* f, int flags, int* out_flags) {
  WritebackFile* w = self(f);
  w->fd = -1;
  w->writeback = nullptr;
  const int rc = g_real->xOpen(g_real, name, w->real(), flags, out_flags);
  if (rc != SQLITE_OK || !w->real()->pMethods) {
    f->pMethods = nullptr;  // SQLite calls no xClose on a file that failed to open
    return rc;
  }
  switch (w->real()->pMethods->iVersion) {
    case 1: f->pMethods = &g_methods_v1; break;
    case 2: f->pMethods = &g_methods_v2; break;
    default: f->pMethods = &kMethods; break;
  }
  if (name && (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL)) && (flags & SQLITE_OPEN_READWRITE)) {
    w->fd = open(name, O_RDONLY | O_CLOEXEC);  // -1: no early writeback for this file
    if (w->fd >= 0) {
      w->writeback = new (std::nothrow) EarlyWriteback(w->fd);
      if (!w->writeback) {
        close(w->fd);
        w->fd = -1;
      }
    }
  }
  return SQLITE_OK;
}

int vfs_delete(sqlite3_vfs*, const char* name, int sync_dir) { return g_real->xDelete(g_real, name, sync_dir); }
int vfs_access(sqlite3_vfs*, const char* name, int flags, int* out) { return g_real->xAccess(g_real, name, flags, out); }
int vfs_full_pathname(sqlite3_vfs*, const char* name, int n, char* out) {
  return g_real->xFullPathname(g_real, name, n, out);
}
void* vfs_dl_open(sqlite3_vfs*, const char* name) { return g_real->xDlOpen(g_real, name); }
void vfs_dl_error(sqlite3_vfs*, int n, char* out) { g_real->xDlError(g_real, n, out); }
void (*vfs_dl_sym(sqlite3_vfs*, void* handle, const char* symbol))(void) { return g_real->xDlSym(g_real, handle, symbol); }
void vfs_dl_close(sqlite3_vfs*, void* handle) { g_real->xDlClose(g_real, handle); }
int vfs_randomness(sqlite3_vfs*, int n, char* out) { return g_real->xRandomness(g_real, n, out); }
int vfs_sleep(sqlite3_vfs*, int us) { return g_real->xSleep(g_real, us); }
int vfs_current_time(sqlite3_vfs*, double* out) { return g_real->xCurrentTime(g_real, out); }
int vfs_get_last_error(sqlite3_vfs*, int n, char* out) { return g_real->xGetLastError(g_real, n, out); }
int vfs_current_time_int64(sqlite3_vfs*, sqlite3_int64* out) { return g_real->xCurrentTimeInt64(g_real, out); }

sqlite3_vfs g_vfs;
const char* g_name = nullptr;

void register_vfs() {
  g_real = sqlite3_vfs_find(nullptr);
  if (!g_real || g_real->iVersion < 2) return;
  g_methods_v1 = kMethods;
  g_methods_v1.iVersion = 1;
  g_methods_v2 = kMethods;
  g_methods_v2.iVersion = 2;
  g_vfs = {};
  g_vfs.iVersion = 2;
  g_vfs.szOsFile = static_cast<int>(sizeof(WritebackFile)) + g_real->szOsFile;
  g_vfs.mxPathname = g_real->mxPathname;
  g_vfs.zName = "weft-writeback";
  g_vfs.xOpen = wb_open;
  g_vfs.xDelete = vfs_delete;
  g_vfs.xAccess = vfs_access;
  g_vfs.xFullPathname = vfs_full_pathname;
  g_vfs.xDlOpen = vfs_dl_open;
  g_vfs.xDlError = vfs_dl_error;
  g_vfs.xDlSym = vfs_dl_sym;
  g_vfs.xDlClose = vfs_dl_close;
  g_vfs.xRandomness = vfs_randomness;
  g_vfs.xSleep = vfs_sleep;
  g_vfs.xCurrentTime = vfs_current_time;
  g_vfs.xGetLastError = vfs_get_last_error;
  g_vfs.xCurrentTimeInt64 = vfs_current_time_int64;
  if (sqlite3_vfs_register(&g_vfs, 0) == SQLITE_OK) g_name = g_vfs.zName;
}

}  // namespace

std::int64_t writeback_vfs_background_syncs() { return background_syncs(); }

const char* writeback_vfs_name() {
  static std::once_flag once;
  std::call_once(once, register_vfs);
  return g_name;
}

}  // namespace weft::db
