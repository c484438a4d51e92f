#include "app/table_writer.h"

#include <cerrno>
#include <charconv>

#include "common/error.h"
#include "common/text.h"

namespace weft::app {
namespace {

constexpr std::size_t kWriteBytes = 64 << 10;

// RFC 4180: a field with a comma, a quote or a line break is quoted and its
// quotes doubled; line breaks stay as they are inside the quotes. Other
// control characters (which RFC 4180 does not allow, and which would act on a
// terminal showing the file) are written as \xNN.
void append_csv_quoted(std::string& out, std::string_view text) {
  bool plain = true;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == ',' || c == '"' || c == '\r' || c == '\n' || u < 0x20 || u == 0x7f) plain = false;
  }
  if (plain) {  // function names, nearly always
    out += text;
    return;
  }
  std::string field;
  bool needs_quotes = false;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == ',' || c == '"' || c == '\r' || c == '\n') needs_quotes = true;
    if (c == '"') field += '"';
    if ((u < 0x20 && c != '\r' && c != '\n' && c != '\t') || u == 0x7f) {
      field += escape_control_chars(std::string_view(&c, 1));
      continue;
    }
    field += c;
  }
  if (needs_quotes) out += '"';
  out += field;
  if (needs_quotes) out += '"';
}

void append_json_quoted(std::string& out, std::string_view text) {
  out += '"';
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

}  // namespace

TableFormat parse_table_format(const std::string& name) {
  if (name == "csv") return TableFormat::Csv;
  if (name == "json") return TableFormat::Json;
  throw Error("unknown format '" + name + "' (csv or json)");
}

std::string csv_quote(std::string_view text) {
  std::string out;
  append_csv_quoted(out, text);
  return out;
}

std::string json_quote(std::string_view text) {
  std::string out;
  append_json_quoted(out, text);
  return out;
}

TableWriter::TableWriter(std::FILE* out, TableFormat format, std::vector<std::string> columns)
    : out_(out), format_(format), columns_(std::move(columns)) {
  buffer_.reserve(kWriteBytes + 4096);
  if (format_ == TableFormat::Csv) {
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (i) buffer_ += ',';
      append_csv_quoted(buffer_, columns_[i]);
    }
    buffer_ += '\n';
  } else {
    for (const std::string& c : columns_) json_keys_.push_back(json_quote(c) + ":");
    buffer_ += '[';
  }
}

void TableWriter::begin_value() {
  if (format_ == TableFormat::Csv) {
    if (column_ > 0) buffer_ += ',';
  } else {
    if (column_ == 0) buffer_ += rows_ > 0 ? ",\n{" : "\n{";
    else buffer_ += ',';
    buffer_ += json_keys_[column_];
  }
  ++column_;
}

void TableWriter::integer(std::int64_t value) {
  begin_value();
  char digits[24];
  const std::to_chars_result r = std::to_chars(digits, digits + sizeof digits, value);
  buffer_.append(digits, r.ptr);
}

void TableWriter::null() {
  begin_value();
  if (format_ == TableFormat::Json) buffer_ += "null";
}

void TableWriter::text(std::string_view value) {
  begin_value();
  if (format_ == TableFormat::Csv)
    append_csv_quoted(buffer_, value);
  else
    append_json_quoted(buffer_, value);
}

void TableWriter::end_row() {
  buffer_ += format_ == TableFormat::Csv ? '\n' : '}';
  column_ = 0;
  ++rows_;
  if (buffer_.size() >= kWriteBytes) write_buffered();
}

void TableWriter::write_buffered() {
  // The first failure's errno is kept: the stream's error flag alone would
  // leave the caller's final fflush nothing to fail on, and errno unset.
  errno = 0;
  if (write_errno_ == 0 && std::fwrite(buffer_.data(), 1, buffer_.size(), out_) != buffer_.size())
    write_errno_ = errno != 0 ? errno : EIO;
  buffer_.clear();
}

void TableWriter::finish() {
  if (format_ == TableFormat::Json) buffer_ += "\n]\n";
  write_buffered();
}

}  // namespace weft::app
