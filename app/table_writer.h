#pragma once
// Writes rows of named columns as CSV (RFC 4180 quoting) or as a JSON array
// of objects, streaming, so an export of millions of rows never sits in memory.
// Values are either integers, NULL (empty in CSV, null in JSON) or text; text
// from traces is untrusted and escaped for the format.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace weft::app {

enum class TableFormat { Csv, Json };

TableFormat parse_table_format(const std::string& name);

class TableWriter {
 public:
  TableWriter(std::FILE* out, TableFormat format, std::vector<std::string> columns);
  void integer(std::int64_t value);
  void null();
  void text(std::string_view value);
  void end_row();
  void finish();  // closes the JSON array and writes what is buffered; call once after the last row
  // The errno of the first write that failed (ENOSPC: disk full), 0 if none.
  // Once one has failed, the rest are dropped: the output is incomplete.
  int write_errno() const { return write_errno_; }

 private:
  void begin_value();
  void write_buffered();

  std::FILE* out_;
  TableFormat format_;
  std::vector<std::string> columns_;
  // Each value's prefix: its JSON key ("name":), quoted once here rather
  // than per row.
  std::vector<std::string> json_keys_;
  // The rows formatted so far, written out in blocks of ~64 KB: one stdio
  // call per block instead of a printf per value (an export of 32M rows
  // spent most of its time parsing format strings).
  std::string buffer_;
  std::size_t column_ = 0;
  std::int64_t rows_ = 0;
  int write_errno_ = 0;
};

std::string csv_quote(std::string_view text);
std::string json_quote(std::string_view text);

}  // namespace weft::app
