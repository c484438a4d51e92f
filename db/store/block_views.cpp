#include "store/block_views.h"

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "store/block_codec.h"

namespace weft::db {
namespace {

// Plans passed from xBestIndex to xFilter as idxNum.
enum Plan { kFullScan = 0, kById = 1, kByProcess = 2 };

// An optional id or process: kNullRef is SQL NULL.
void ref(sqlite3_context* ctx, std::int64_t v) {
  if (v == kNullRef)
    sqlite3_result_null(ctx);
  else
    sqlite3_result_int64(ctx, v);
}

struct EventsTraits {
  using Row = EventRecord;
  static constexpr const char* kSchema =
      "CREATE TABLE x(bucket INTEGER, process INTEGER, start_ns INTEGER, id INTEGER,"
      " end_ns INTEGER, region INTEGER, depth INTEGER)";
  static constexpr int kIdColumn = 3;
  static constexpr int kProcessColumn = 1;
  static constexpr const char* kScanSql = "SELECT bucket, process, data FROM event_blocks";
  static constexpr const char* kByIdSql =
      "SELECT bucket, process, data FROM event_blocks WHERE process ="
      " (SELECT process FROM processes WHERE first_event <= ?1 AND event_count > 0"
      " ORDER BY first_event DESC LIMIT 1)"
      " AND first_id <= ?1 AND last_id >= ?1";
  static constexpr const char* kByProcessSql =
      "SELECT bucket, process, data FROM event_blocks WHERE process = ?1";
  static constexpr bool kUniqueId = true;

  static void decode(std::span<const std::uint8_t> blob, std::int64_t process,
                     std::vector<Row>& out) {
    decode_event_block(blob, static_cast<ProcessIndex>(process), out, "events");
  }
  static std::int64_t id(const Row& r) { return r.id; }
  static void column(sqlite3_context* ctx, const Row& r, std::int64_t bucket, int col) {
    switch (col) {
      case 0: sqlite3_result_int64(ctx, bucket); break;
      case 1: sqlite3_result_int64(ctx, r.process); break;
      case 2: sqlite3_result_int64(ctx, r.start_ns); break;
      case 3: sqlite3_result_int64(ctx, r.id); break;
      case 4: sqlite3_result_int64(ctx, r.end_ns); break;
      case 5: sqlite3_result_int64(ctx, r.region); break;
      case 6: sqlite3_result_int64(ctx, r.depth); break;
      default: sqlite3_result_null(ctx);
    }
  }
};

struct MessagesTraits {
  using Row = MessageRecord;
  static constexpr const char* kSchema =
      "CREATE TABLE x(id INTEGER, src INTEGER, dst INTEGER, comm INTEGER, tag INTEGER,"
      " bytes INTEGER, send_event INTEGER, send_done_event INTEGER, recv_post_event INTEGER,"
      " recv_event INTEGER, send_ns INTEGER, recv_ns INTEGER)";
  static constexpr int kIdColumn = -1;
  static constexpr int kProcessColumn = -1;
  static constexpr const char* kScanSql = "SELECT bucket, process, data FROM message_blocks";
  static constexpr const char* kByIdSql = nullptr;
  static constexpr const char* kByProcessSql = nullptr;
  static constexpr bool kUniqueId = true;

  static void decode(std::span<const std::uint8_t> blob, std::int64_t owner,
                     std::vector<Row>& out) {
    decode_message_block(blob, owner, out, "messages");
  }
  static std::int64_t id(const Row& r) { return r.id; }
  static void column(sqlite3_context* ctx, const Row& m, std::int64_t, int col) {
    switch (col) {
      case 0: sqlite3_result_int64(ctx, m.id); break;
      case 1: ref(ctx, m.src); break;
      case 2: ref(ctx, m.dst); break;
      case 3: sqlite3_result_int64(ctx, m.comm); break;
      case 4: sqlite3_result_int64(ctx, m.tag); break;
      case 5: sqlite3_result_int64(ctx, m.bytes); break;
      case 6: ref(ctx, m.send_event); break;
      case 7: ref(ctx, m.send_done_event); break;
      case 8: ref(ctx, m.recv_post_event); break;
      case 9: ref(ctx, m.recv_event); break;
      case 10:
        if (m.has_send_ns) sqlite3_result_int64(ctx, m.send_ns); else sqlite3_result_null(ctx);
        break;
      case 11:
        if (m.has_recv_ns) sqlite3_result_int64(ctx, m.recv_ns); else sqlite3_result_null(ctx);
        break;
      default: sqlite3_result_null(ctx);
    }
  }
};

struct MembersTraits {
  using Row = PackedCollectiveMember;
  static constexpr const char* kSchema =
      "CREATE TABLE x(collective INTEGER, process INTEGER, event INTEGER, start_ns INTEGER,"
      " end_ns INTEGER, bytes_sent INTEGER, bytes_received INTEGER)";
  static constexpr int kIdColumn = 0;  // lookups by collective
  static constexpr int kProcessColumn = -1;
  static constexpr const char* kScanSql =
      "SELECT 0, collective, data FROM collective_member_blocks";
  static constexpr const char* kByIdSql =
      "SELECT 0, collective, data FROM collective_member_blocks WHERE collective = ?1";
  static constexpr const char* kByProcessSql = nullptr;
  static constexpr bool kUniqueId = false;

  static void decode(std::span<const std::uint8_t> blob, std::int64_t collective,
                     std::vector<Row>& out) {
    decode_member_block(blob, collective, out, "collective_members");
  }
  static std::int64_t id(const Row& r) { return r.member.collective; }
  static void column(sqlite3_context* ctx, const Row& r, std::int64_t, int col) {
    const StoredCollectiveMember& m = r.member;
    switch (col) {
      case 0: sqlite3_result_int64(ctx, m.collective); break;
      case 1: sqlite3_result_int64(ctx, m.process); break;
      case 2: ref(ctx, m.event); break;
      case 3: sqlite3_result_int64(ctx, m.start_ns); break;
      case 4: sqlite3_result_int64(ctx, m.end_ns); break;
      case 5: sqlite3_result_int64(ctx, r.bytes_sent); break;
      case 6: sqlite3_result_int64(ctx, r.bytes_received); break;
      default: sqlite3_result_null(ctx);
    }
  }
};

struct CommEventsTraits {
  using Row = CommEventRecord;
  static constexpr const char* kSchema =
      "CREATE TABLE x(event INTEGER, process INTEGER, region INTEGER, kind INTEGER,"
      " start_ns INTEGER, end_ns INTEGER, partition INTEGER, step INTEGER, local_step INTEGER,"
      " collective INTEGER, message INTEGER, send_step INTEGER, lateness_ns INTEGER,"
      " global_lateness_ns INTEGER, diff_lateness_ns INTEGER, wait_ns INTEGER)";
  static constexpr int kIdColumn = 0;
  static constexpr int kProcessColumn = 1;
  static constexpr const char* kScanSql = "SELECT step_block, process, data FROM comm_event_blocks";
  // A process's rows are one range of the rowid key per step block (docs/
  // schema.md, "comm_events"): `rows` is the key's R; the step blocks run up
  // to the last row's, and no further than a file of its size could hold
  // (its bytes / 16 per row, the bound of step_block_count in
  // structure/comm_event_blocks.cpp: a damaged row key must not make every
  // lookup probe 2^32 blocks). A
  // file whose key's meta fact is missing or is not the run's count of rows
  // (analysis_logical_rows of a task run, else its processes; at least 1)
  // is read whole (SQLite checks the constraint on what the view gives);
  // one analyzed before the key has no `block` column: preparing this fails
  // with "no such column", and x_filter scans the table instead.
#define WEFT_COMM_EVENT_KEY_FACT                                                                        \
  "key = 'analysis_block_key_rows' AND CAST(value AS INTEGER) = max(1, coalesce("                      \
  "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'analysis_logical_rows'),"                     \
  " (SELECT count(*) FROM processes)))"
#define WEFT_COMM_EVENT_RANGES(PROCESS)                                                                 \
  "WITH RECURSIVE key(rows) AS (SELECT CAST(value AS INTEGER) FROM meta WHERE " WEFT_COMM_EVENT_KEY_FACT "),"  \
  " b(block) AS (SELECT 0 UNION ALL SELECT block + 1 FROM b, key"                                       \
  "  WHERE block < min(((SELECT max(block) FROM comm_event_blocks) >> 31) / key.rows,"                 \
  "  (SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()) / 16 / key.rows + 1))" \
  " SELECT c.step_block, c.process, c.data FROM b, key, comm_event_blocks c"                            \
  "  WHERE c.block BETWEEN ((b.block * key.rows + " PROCESS ") << 31)"                                  \
  "  AND ((b.block * key.rows + " PROCESS ") << 31) + 2147483647"
#define WEFT_COMM_EVENT_KEYLESS                                                                          \
  " UNION ALL SELECT step_block, process, data FROM comm_event_blocks"                                  \
  "  WHERE NOT EXISTS (SELECT 1 FROM meta WHERE " WEFT_COMM_EVENT_KEY_FACT ")"
  static constexpr const char* kByIdSql =
      WEFT_COMM_EVENT_RANGES("(SELECT process FROM processes WHERE first_event <= ?1 AND event_count > 0"
                             " ORDER BY first_event DESC LIMIT 1)")
      " AND c.first_id <= ?1 AND c.last_id >= ?1" WEFT_COMM_EVENT_KEYLESS;
  static constexpr const char* kByProcessSql = WEFT_COMM_EVENT_RANGES("?1") WEFT_COMM_EVENT_KEYLESS;
#undef WEFT_COMM_EVENT_KEY_FACT
#undef WEFT_COMM_EVENT_RANGES
#undef WEFT_COMM_EVENT_KEYLESS
  static constexpr bool kUniqueId = true;

  static void decode(std::span<const std::uint8_t> blob, std::int64_t process,
                     std::vector<Row>& out) {
    decode_comm_event_block(blob, static_cast<ProcessIndex>(process), out, "comm_events");
  }
  static std::int64_t id(const Row& r) { return r.event; }
  static void column(sqlite3_context* ctx, const Row& e, std::int64_t, int col) {
    switch (col) {
      case 0: sqlite3_result_int64(ctx, e.event); break;
      case 1: sqlite3_result_int64(ctx, e.process); break;
      case 2: sqlite3_result_int64(ctx, e.region); break;
      case 3: sqlite3_result_int64(ctx, e.kind); break;
      case 4: sqlite3_result_int64(ctx, e.start_ns); break;
      case 5: sqlite3_result_int64(ctx, e.end_ns); break;
      case 6: sqlite3_result_int64(ctx, e.partition); break;
      case 7: sqlite3_result_int64(ctx, e.step); break;
      case 8: sqlite3_result_int64(ctx, e.local_step); break;
      case 9: ref(ctx, e.collective); break;
      case 10: ref(ctx, e.message); break;
      case 11: ref(ctx, e.send_step); break;
      case 12: sqlite3_result_int64(ctx, e.lateness_ns); break;
      case 13: sqlite3_result_int64(ctx, e.global_lateness_ns); break;
      case 14: sqlite3_result_int64(ctx, e.diff_lateness_ns); break;
      case 15: sqlite3_result_int64(ctx, e.wait_ns); break;
      default: sqlite3_result_null(ctx);
    }
  }
};

// The message lines of the logical view, one row per message: send_step and
// message are first, the key of the table this view stood for before.
struct MessageStepsTraits {
  using Row = MessageStepRecord;
  static constexpr const char* kSchema =
      "CREATE TABLE x(send_step INTEGER, message INTEGER, src INTEGER, dst INTEGER, recv_step INTEGER)";
  static constexpr int kIdColumn = -1;
  static constexpr int kProcessColumn = -1;
  static constexpr const char* kScanSql = "SELECT send_step, send_step, data FROM message_step_blocks";
  static constexpr const char* kByIdSql = nullptr;
  static constexpr const char* kByProcessSql = nullptr;
  static constexpr bool kUniqueId = true;

  static void decode(std::span<const std::uint8_t> blob, std::int64_t send_step, std::vector<Row>& out) {
    decode_message_step_block(blob, send_step, out, "message_steps");
  }
  static std::int64_t id(const Row& r) { return r.message; }
  static void column(sqlite3_context* ctx, const Row& m, std::int64_t, int col) {
    switch (col) {
      case 0: sqlite3_result_int64(ctx, m.send_step); break;
      case 1: sqlite3_result_int64(ctx, m.message); break;
      case 2: sqlite3_result_int64(ctx, m.src); break;
      case 3: sqlite3_result_int64(ctx, m.dst); break;
      case 4: sqlite3_result_int64(ctx, m.recv_step); break;
      default: sqlite3_result_null(ctx);
    }
  }
};

template <class T>
struct Table {
  sqlite3_vtab base{};
  sqlite3* db = nullptr;
};

// Walks the rows of a block query, decoding one block at a time.
template <class T>
struct Cursor {
  sqlite3_vtab_cursor base{};
  sqlite3_stmt* blocks = nullptr;
  std::vector<typename T::Row> rows;
  std::size_t at = 0;
  std::int64_t bucket = 0;
  bool only_id = false;  // kById: skip the block's other rows
  std::int64_t wanted_id = 0;
  bool eof = true;
};

template <class T>
int fail(sqlite3_vtab* vtab, const std::string& message, int code = SQLITE_ERROR) {
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("%s", message.c_str());
  return code;
}

template <class T>
int x_connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
  int rc = sqlite3_declare_vtab(db, T::kSchema);
  if (rc != SQLITE_OK) return rc;
  auto* table = new Table<T>();
  table->db = db;
  *out = &table->base;
  return SQLITE_OK;
}

template <class T>
int x_disconnect(sqlite3_vtab* vtab) {
  delete reinterpret_cast<Table<T>*>(vtab);
  return SQLITE_OK;
}

template <class T>
int x_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  int id_constraint = -1, process_constraint = -1;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (c.iColumn == T::kIdColumn && T::kIdColumn >= 0) id_constraint = i;
    if (c.iColumn == T::kProcessColumn && T::kProcessColumn >= 0) process_constraint = i;
  }
  if (id_constraint >= 0) {
    info->idxNum = kById;
    info->aConstraintUsage[id_constraint].argvIndex = 1;
    info->estimatedCost = 20;
    info->estimatedRows = T::kUniqueId ? 1 : 100;
    if (T::kUniqueId) info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
  } else if (process_constraint >= 0) {
    info->idxNum = kByProcess;
    info->aConstraintUsage[process_constraint].argvIndex = 1;
    info->estimatedCost = 10000;
    info->estimatedRows = 10000;
  } else {
    info->idxNum = kFullScan;
    info->estimatedCost = 1e7;
    info->estimatedRows = 10000000;
  }
  return SQLITE_OK;
}

template <class T>
int x_open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  auto* cursor = new Cursor<T>();
  *out = &cursor->base;
  return SQLITE_OK;
}

template <class T>
int x_close(sqlite3_vtab_cursor* base) {
  auto* cursor = reinterpret_cast<Cursor<T>*>(base);
  sqlite3_finalize(cursor->blocks);
  delete cursor;
  return SQLITE_OK;
}

// Moves to the next wanted row, decoding blocks as needed.
template <class T>
int advance(Cursor<T>* cursor) {
  try {
    for (;;) {
      while (cursor->at < cursor->rows.size()) {
        if (!cursor->only_id || T::id(cursor->rows[cursor->at]) == cursor->wanted_id) return SQLITE_OK;
        ++cursor->at;
      }
      int rc = sqlite3_step(cursor->blocks);
      if (rc == SQLITE_DONE) {
        cursor->eof = true;
        return SQLITE_OK;
      }
      if (rc != SQLITE_ROW) return fail<T>(cursor->base.pVtab, sqlite3_errmsg(sqlite3_db_handle(cursor->blocks)), rc);
      cursor->bucket = sqlite3_column_int64(cursor->blocks, 0);
      std::int64_t process = sqlite3_column_int64(cursor->blocks, 1);
      const void* data = sqlite3_column_blob(cursor->blocks, 2);
      auto size = static_cast<std::size_t>(sqlite3_column_bytes(cursor->blocks, 2));
      cursor->rows.clear();
      cursor->at = 0;
      T::decode({static_cast<const std::uint8_t*>(data), data ? size : 0}, process, cursor->rows);
    }
  } catch (const std::exception& e) {
    return fail<T>(cursor->base.pVtab, e.what(), SQLITE_CORRUPT);
  }
}

template <class T>
int x_filter(sqlite3_vtab_cursor* base, int plan, const char*, int argc, sqlite3_value** argv) {
  auto* cursor = reinterpret_cast<Cursor<T>*>(base);
  auto* table = reinterpret_cast<Table<T>*>(base->pVtab);
  sqlite3_finalize(cursor->blocks);
  cursor->blocks = nullptr;
  const char* sql = plan == kById ? T::kByIdSql : plan == kByProcess ? T::kByProcessSql : T::kScanSql;
  if (!sql) sql = T::kScanSql;
  int rc = sqlite3_prepare_v2(table->db, sql, -1, &cursor->blocks, nullptr);
  // An older layout the lookup does not fit (comm_event_blocks before its
  // rowid key has no `block` column): the whole table, which SQLite filters
  // by the constraint. Any other error is reported as it is.
  if (rc != SQLITE_OK && sql != T::kScanSql && std::string_view(sqlite3_errmsg(table->db)).starts_with("no such column"))
    rc = sqlite3_prepare_v2(table->db, T::kScanSql, -1, &cursor->blocks, nullptr);
  if (rc != SQLITE_OK) return fail<T>(base->pVtab, sqlite3_errmsg(table->db), rc);
  cursor->only_id = false;
  if (plan != kFullScan && argc >= 1) {
    // A non-integer key (text, NULL) matches no row.
    if (sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER) {
      cursor->rows.clear();
      cursor->at = 0;
      cursor->eof = true;
      return SQLITE_OK;
    }
    sqlite3_bind_int64(cursor->blocks, 1, sqlite3_value_int64(argv[0]));
    cursor->only_id = plan == kById;
    cursor->wanted_id = sqlite3_value_int64(argv[0]);
  }
  cursor->rows.clear();
  cursor->at = 0;
  cursor->eof = false;
  return advance(cursor);
}

template <class T>
int x_next(sqlite3_vtab_cursor* base) {
  auto* cursor = reinterpret_cast<Cursor<T>*>(base);
  ++cursor->at;
  return advance(cursor);
}

template <class T>
int x_eof(sqlite3_vtab_cursor* base) {
  return reinterpret_cast<Cursor<T>*>(base)->eof ? 1 : 0;
}

template <class T>
int x_column(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int col) {
  auto* cursor = reinterpret_cast<Cursor<T>*>(base);
  T::column(ctx, cursor->rows[cursor->at], cursor->bucket, col);
  return SQLITE_OK;
}

// The rowid: the id where it is unique, else the row's position in its block
// combined with the block's key (unique for collective members: a collective
// has fewer than 2^24 members in practice; rowids are not stored anywhere).
template <class T>
int x_rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  auto* cursor = reinterpret_cast<Cursor<T>*>(base);
  std::int64_t id = T::id(cursor->rows[cursor->at]);
  *rowid = T::kUniqueId ? id : id * (std::int64_t{1} << 24) + static_cast<std::int64_t>(cursor->at);
  return SQLITE_OK;
}

template <class T>
sqlite3_module make_module() {
  sqlite3_module m;
  std::memset(&m, 0, sizeof m);
  m.iVersion = 1;
  m.xCreate = nullptr;  // eponymous only: no CREATE VIRTUAL TABLE
  m.xConnect = x_connect<T>;
  m.xBestIndex = x_best_index<T>;
  m.xDisconnect = x_disconnect<T>;
  m.xDestroy = x_disconnect<T>;
  m.xOpen = x_open<T>;
  m.xClose = x_close<T>;
  m.xFilter = x_filter<T>;
  m.xNext = x_next<T>;
  m.xEof = x_eof<T>;
  m.xColumn = x_column<T>;
  m.xRowid = x_rowid<T>;
  return m;
}

const sqlite3_module kEventsModule = make_module<EventsTraits>();
const sqlite3_module kMessagesModule = make_module<MessagesTraits>();
const sqlite3_module kMembersModule = make_module<MembersTraits>();
const sqlite3_module kCommEventsModule = make_module<CommEventsTraits>();
const sqlite3_module kMessageStepsModule = make_module<MessageStepsTraits>();

}  // namespace

int register_block_views(sqlite3* db) {
  int rc = sqlite3_create_module(db, "events", &kEventsModule, nullptr);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_create_module(db, "messages", &kMessagesModule, nullptr);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_create_module(db, "collective_members", &kMembersModule, nullptr);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_create_module(db, "comm_events", &kCommEventsModule, nullptr);
  if (rc != SQLITE_OK) return rc;
  return sqlite3_create_module(db, "message_steps", &kMessageStepsModule, nullptr);
}

}  // namespace weft::db
