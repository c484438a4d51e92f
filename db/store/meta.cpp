#include "store/meta.h"

#include <string>

#include "common/error.h"

namespace weft::db {

std::optional<std::int64_t> find_meta_int(Database& db, std::string_view key) {
  Statement s(db, "SELECT value FROM meta WHERE key = ?1");
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  const std::string text = s.column_text(0);
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw Error(db.path(), "meta key '" + std::string(key) + "' is not an integer: " + text);
}

std::int64_t read_meta_int(Database& db, std::string_view key, std::string_view hint) {
  if (auto value = find_meta_int(db, key)) return *value;
  std::string message = "meta key '" + std::string(key) + "' is missing";
  if (!hint.empty()) message += "; " + std::string(hint);
  throw Error(db.path(), message);
}

bool has_table(Database& db, std::string_view name) {
  Statement s(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
  s.bind(1, name);
  return s.step();
}

void write_meta_ints(Database& db, std::initializer_list<std::pair<std::string_view, std::int64_t>> facts) {
  Statement put(db, "INSERT OR REPLACE INTO meta VALUES (?1, ?2)");
  for (const auto& [key, value] : facts) {
    put.bind(1, key);
    put.bind(2, std::string_view(std::to_string(value)));
    put.run();
  }
}

void write_meta_text(Database& db, std::string_view key, std::string_view value) {
  Statement put = db.prepare("INSERT OR REPLACE INTO meta VALUES (?, ?)");
  put.bind(1, key);
  put.bind(2, value);
  put.run();
}

std::optional<std::string> find_meta_text(Database& db, std::string_view key) {
  Statement s = db.prepare("SELECT value FROM meta WHERE key = ?");
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  return s.column_text(0);
}

}  // namespace weft::db
