#pragma once
// Whole-table scans of the stored events, messages and collective members, for
// passes that need every row (the structure analysis, exports, checks) rather
// than a window. Rows arrive in batches through a callback so that a scan of
// hundreds of millions of rows never materializes them all; the order of rows
// is unspecified (callers that need an order sort what they keep).
//
// This is the one place that knows how those tables are laid out on disk:
// everything outside db/store reads them through here or WindowQuery.
#include <cstdint>
#include <functional>
#include <span>

#include "common/types.h"
#include "store/records.h"
#include "store/sqlite.h"

namespace weft::db {

template <class Row>
using RowSink = std::function<void(std::span<const Row>)>;

void scan_events(Database& db, const RowSink<EventRecord>& sink);
// The events of processes first .. end - 1 only (two threads can each read a
// share of the table).
void scan_events_of_processes(Database& db, ProcessIndex first, ProcessIndex end, const RowSink<EventRecord>& sink);
// All events of one process at a time, processes in increasing order, each
// process's events sorted by start and then depth (a caller before its callees).
// Holds one process's events in memory at a time.
void scan_events_by_process(
    Database& db, const std::function<void(ProcessIndex, std::span<const EventRecord>)>& sink);
void scan_messages(Database& db, const RowSink<MessageRecord>& sink);
// How many messages scan_messages will give, from the block headers (at most
// what the blocks' bytes can hold, should a count be damaged).
std::int64_t count_messages(Database& db);
void scan_collective_members(Database& db, const RowSink<StoredCollectiveMember>& sink);
// How many members scan_collective_members will give, likewise.
std::int64_t count_collective_members(Database& db);

}  // namespace weft::db
