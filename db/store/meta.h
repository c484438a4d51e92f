#pragma once
// Reading and writing single facts of the `meta` table (key TEXT, value TEXT)
// as integers, with errors that name the file and the key; and whether a
// table exists (the optional tables of a run: analysis, summaries).
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "store/sqlite.h"

namespace weft::db {

// The integer under `key`, or none when the key is absent. Throws weft::Error
// when the value is not an integer.
std::optional<std::int64_t> find_meta_int(Database& db, std::string_view key);
// The integer under `key`; throws weft::Error when absent, adding `hint` (e.g.
// which command writes it) to the message.
std::int64_t read_meta_int(Database& db, std::string_view key, std::string_view hint = "");
// Whether `db` holds a stored table named `name` (views and virtual tables do not count).
bool has_table(Database& db, std::string_view name);

// Sets each key to its value (inside the caller's transaction, if any).
void write_meta_ints(Database& db, std::initializer_list<std::pair<std::string_view, std::int64_t>> facts);
void write_meta_text(Database& db, std::string_view key, std::string_view value);
// The text under `key`, or none when the key is absent.
std::optional<std::string> find_meta_text(Database& db, std::string_view key);

}  // namespace weft::db
