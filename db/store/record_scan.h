#pragma once
// Whole-table scans of the stored events, messages and collective members, for
// passes that need every row (the structure analysis, exports, checks) rather
// than a window. Rows arrive in batches through a callback so that a scan of
// hundreds of millions of rows never materializes them all; the order of rows
// is unspecified (callers that need an order sort what they keep).
//
// This is the one place that knows how those tables are laid out on disk:
// everything outside db/store reads them through here or WindowQuery.
#include <compare>
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
// The message blocks one at a time, in the order scan_messages gives their
// records (the table's key order, MessageBlockKey), from the first block on
// (ScanFrom::Front) or from the last back (ScanFrom::Back). For each block,
// claim(key) says whether to decode it, and a `false` ends the scan; a
// claimed block's records go to sink, in their order within the block. Two
// threads, one from each end, can so share the blocks and meet in the middle.
struct MessageBlockKey {
  std::int64_t bucket = 0, process = 0, part = 0;
  auto operator<=>(const MessageBlockKey&) const = default;
};
enum class ScanFrom { Front, Back };
void scan_message_blocks(Database& db, ScanFrom from, const std::function<bool(const MessageBlockKey&)>& claim,
                         const RowSink<MessageRecord>& sink);
// How many messages scan_messages will give, from the block headers (at most
// what the blocks' bytes can hold, should a count be damaged).
std::int64_t count_messages(Database& db);
void scan_collective_members(Database& db, const RowSink<StoredCollectiveMember>& sink);
// How many members scan_collective_members will give, likewise.
std::int64_t count_collective_members(Database& db);

}  // namespace weft::db
