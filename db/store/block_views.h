#pragma once
// SQL access to the packed blocks: the eponymous virtual tables `events`,
// `messages`, `collective_members`, `comm_events` and `message_steps` decode
// event_blocks, message_blocks, collective_member_blocks, comm_event_blocks
// and message_step_blocks (the last two: the analysis) row by row, so that
//   SELECT count(*) FROM events WHERE process = 3
//   SELECT ... FROM messages m JOIN events e ON e.id = m.send_event
// work on any connection opened through weft::db::Database (docs/schema.md,
// "SQL views"). They are read-only and meant for people and tests; weft's own
// hot paths read blocks directly (WindowQuery, record_scan.h).
//
// Plans: `events` (and `comm_events`, on `event`) answers `id = ?` with one index probe (processes.first_event,
// then the blocks of that process whose id span holds it) and `process = ?`
// with the blocks of that process; anything else is a full scan of the blocks.
// `messages` and `message_steps` are always full scans; `collective_members` answers
// `collective = ?` with one row lookup.
#include <sqlite3.h>

namespace weft::db {

// Registers the five modules on `db`; returns an SQLite result code.
int register_block_views(sqlite3* db);

}  // namespace weft::db
