#include "app/table_writer.h"

#include <cinttypes>

#include "common/error.h"
#include "common/text.h"

namespace weft::app {

TableFormat parse_table_format(const std::string& name) {
  if (name == "csv") return TableFormat::Csv;
  if (name == "json") return TableFormat::Json;
  throw Error("unknown format '" + name + "' (csv or json)");
}

// RFC 4180: a field with a comma, a quote or a line break is quoted and its
// quotes doubled; line breaks stay as they are inside the quotes. Other
// control characters (which RFC 4180 does not allow, and which would act on a
// terminal showing the file) are written as \xNN.
std::string csv_quote(std::string_view text) {
  std::string out;
  bool needs_quotes = false;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == ',' || c == '"' || c == '\r' || c == '\n') needs_quotes = true;
    if (c == '"') out += '"';
    if ((u < 0x20 && c != '\r' && c != '\n' && c != '\t') || u == 0x7f) {
      out += escape_control_chars(std::string_view(&c, 1));
      continue;
    }
    out += c;
  }
  return needs_quotes ? "\"" + out + "\"" : out;
}

std::string json_quote(std::string_view text) {
  std::string out = "\"";
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
  return out + "\"";
}

TableWriter::TableWriter(std::FILE* out, TableFormat format, std::vector<std::string> columns)
    : out_(out), format_(format), columns_(std::move(columns)) {
  if (format_ == TableFormat::Csv) {
    for (std::size_t i = 0; i < columns_.size(); ++i)
      std::fprintf(out_, "%s%s", i ? "," : "", csv_quote(columns_[i]).c_str());
    std::fputc('\n', out_);
  } else {
    std::fputs("[", out_);
  }
}

void TableWriter::begin_value() {
  if (format_ == TableFormat::Csv) {
    if (column_ > 0) std::fputc(',', out_);
  } else {
    if (column_ == 0) std::fputs(rows_ > 0 ? ",\n{" : "\n{", out_);
    else std::fputc(',', out_);
    std::fprintf(out_, "%s:", json_quote(columns_[column_]).c_str());
  }
  ++column_;
}

void TableWriter::integer(std::int64_t value) {
  begin_value();
  std::fprintf(out_, "%" PRId64, value);
}

void TableWriter::null() {
  begin_value();
  if (format_ == TableFormat::Json) std::fputs("null", out_);
}

void TableWriter::text(std::string_view value) {
  begin_value();
  std::string q = format_ == TableFormat::Csv ? csv_quote(value) : json_quote(value);
  std::fwrite(q.data(), 1, q.size(), out_);
}

void TableWriter::end_row() {
  std::fputs(format_ == TableFormat::Csv ? "\n" : "}", out_);
  column_ = 0;
  ++rows_;
}

void TableWriter::finish() {
  if (format_ == TableFormat::Json) std::fputs("\n]\n", out_);
}

}  // namespace weft::app
