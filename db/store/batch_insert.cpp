#include "store/batch_insert.h"

namespace weft::db {
namespace {

std::string insert_sql(const std::string& table, const std::string& columns, int column_count,
                       int rows) {
  std::string row = "(";
  for (int c = 0; c < column_count; ++c) row += c ? ",?" : "?";
  row += ")";
  std::string sql = "INSERT INTO " + table + columns + " VALUES ";
  for (int r = 0; r < rows; ++r) {
    if (r) sql += ',';
    sql += row;
  }
  return sql;
}

}  // namespace

BatchInserter::BatchInserter(Database& db, const std::string& table, const std::string& columns,
                             int column_count, int rows_per_statement)
    : column_count_(column_count),
      rows_per_statement_(rows_per_statement),
      many_(db.prepare(insert_sql(table, columns, column_count, rows_per_statement))),
      one_(db.prepare(insert_sql(table, columns, column_count, 1))) {
  pending_.reserve(static_cast<size_t>(column_count) * static_cast<size_t>(rows_per_statement));
}

void BatchInserter::bind_rows(Statement& stmt, const std::int64_t* values, int rows) {
  int n = rows * column_count_;
  for (int i = 0; i < n; ++i) {
    if (values[i] == kSqlNull)
      stmt.bind_null(i + 1);
    else
      stmt.bind(i + 1, values[i]);
  }
  stmt.run();
}

void BatchInserter::add(std::span<const std::int64_t> row) {
  pending_.insert(pending_.end(), row.begin(), row.end());
  ++rows_added_;
  if (pending_.size() == static_cast<size_t>(column_count_) * rows_per_statement_) {
    bind_rows(many_, pending_.data(), rows_per_statement_);
    pending_.clear();
  }
}

void BatchInserter::flush() {
  for (size_t at = 0; at < pending_.size(); at += static_cast<size_t>(column_count_))
    bind_rows(one_, pending_.data() + at, 1);
  pending_.clear();
}

}  // namespace weft::db
