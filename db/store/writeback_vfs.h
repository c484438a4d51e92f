#pragma once
// An SQLite VFS over the default one that syncs a database or WAL file in
// the background every 8 MiB written to it: a thread of the file's own calls
// fdatasync while the writer goes on.
//
// Why: a `weft analyze` of 16,384 processes writes ~70 MB, and its commit
// syncs the journal and the database. The kernel would start writing dirty
// pages back only after 30 s or once gigabytes are dirty, so the syncs
// waited for all 70 MB. Starting the kernel's writeback early
// (sync_file_range) was not enough on VMs: it moves the pages into the
// host's cache, and the commit's sync still waited while the host wrote all
// of them out (70-90 ms at 16,384 processes, as long 0.2 s after the last
// write). Synced as they are written, the pages reach the disk while the
// analysis computes, and the commit waits for the last few MiB (~10 ms).
// Durability and atomicity are SQLite's as before: an extra sync only makes
// written pages durable sooner (a rollback journal is synced before SQLite
// overwrites any page it saves).
#include <cstdint>

namespace weft::db {

// The file-control opcode (sqlite3_file_control) by which a writer asks the
// VFS to start the background sync of what it wrote since the last one now
// (EarlyWriteback::sync_soon). Other VFSes answer SQLITE_NOTFOUND.
inline constexpr int kSyncWrittenSoonFileControl = 0x77656674;  // "weft"

// The VFS's name, registered on first use (thread-safe); pass it to
// sqlite3_open_v2. Falls back to the default VFS (nullptr) where the default
// VFS is older than version 2.
const char* writeback_vfs_name();

// Background syncs done so far in this process (for tests).
std::int64_t writeback_vfs_background_syncs();

}  // namespace weft::db
