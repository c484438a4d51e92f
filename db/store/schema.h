#pragma once
// The .weft schema (docs/schema.md): creating it, and opening an existing run
// with a version check. Every reader of a .weft file goes through open_run so
// that an older or newer file fails with one clear message instead of odd SQL
// errors later.
#include <string>

#include "store/sqlite.h"

namespace weft::db {

// PRAGMA user_version of the files this build writes.
constexpr int kSchemaVersion = 3;
// The oldest version this build reads. Version 2 differs from 3 only in its
// level-of-detail tiles, zlib streams where 3 has LZ4 blocks; the readers
// decompress both (db/summary/lod_tiles.h).
constexpr int kOldestReadableSchemaVersion = 2;

// Raises an older readable file to kSchemaVersion (PRAGMA user_version and
// meta schema_version), inside the caller's transaction: for the writers of
// what version-2 readers cannot read (the LZ4 tiles), so that an older weft
// refuses the file as newer than its own instead of failing on a tile. A
// file of version 0 (being imported) or of this version is left as it is.
void raise_schema_version(Database& db);

// Creates every table of the schema, without the secondary indexes.
void create_tables(Database& db);
// The tables of a Charm++ Projections run (docs/schema.md, "Charm++ runs"):
// chare_types, chares, executions, virtual_ranks, migrations. Additive: an
// OTF2 run does not have them, and the schema version stays the same.
void create_projections_tables(Database& db);
// The secondary indexes. They slow a load of one row per event several times
// (../shared/DESIGN.md), but the block tables get one row per ~100 events,
// in process order, so their (process, first_id) indexes grow by appends:
// the importer creates them before the load (measured: no more CPU than
// building them after, which was a serial 0.07-0.09 s at 4,096 processes).
void create_indexes(Database& db);

// Opens an existing .weft file and checks its schema version. Throws
// weft::Error naming the path for a missing file, a non-SQLite file, a
// database that is not a weft run, or a version this build does not read.
Database open_run(const std::string& path, Database::Mode mode = Database::Mode::ReadOnly,
                  Database::Writeback writeback = Database::Writeback::OnSync);

}  // namespace weft::db
