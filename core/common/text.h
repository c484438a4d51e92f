#pragma once
// Text from traces and run files (region, process and file names, creator
// strings) is untrusted: it can hold terminal escape sequences or line breaks.
// Everything weft prints for people goes through escape_control_chars, so a
// name can neither move the cursor, recolor or retitle the terminal, nor split
// the one-line error contract.
#include <string>
#include <string_view>

namespace weft {

// Replaces C0 control characters (U+0000–U+001F), DEL and the C1 controls
// (U+0080–U+009F, bytes C2 80–C2 9F in UTF-8) by visible escapes: \n, \r, \t
// and \xNN. Other bytes, including the rest of UTF-8, are kept.
inline std::string escape_control_chars(std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  auto hex = [&](unsigned char c) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      hex(c);
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      hex(c);
      hex(static_cast<unsigned char>(text[++i]));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace weft
