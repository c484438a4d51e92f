#pragma once
// An SQLite VFS over the default one that starts the kernel's writeback of a
// database or WAL file every 8 MiB written to it (sync_file_range with
// SYNC_FILE_RANGE_WRITE, which does not wait for the disk).
//
// Why: a `weft analyze` of 16,384 processes writes ~70 MB to the WAL, then
// the checkpoint copies it into the database; each is followed by an fsync.
// The kernel would start writing dirty pages back only after 30 s or once
// gigabytes are dirty, so both fsyncs waited for all 70 MB: 0.15 s of a
// 1.6 s analysis, the disk idle until then. Started early, the writeback runs
// while the analysis computes and the fsyncs wait for the last few MiB.
// Durability and atomicity are SQLite's as before: only the timing of the
// writes changes.
namespace weft::db {

// The VFS's name, registered on first use (thread-safe); pass it to
// sqlite3_open_v2. Falls back to the default VFS (nullptr) where
// sync_file_range does not exist.
const char* writeback_vfs_name();

}  // namespace weft::db
