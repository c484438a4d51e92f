#include "app/user_colors.h"

#include <fcntl.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "store/atomic_output.h"
#include "store/window_query.h"

namespace weft::app {

namespace {

bool parse_hex_color(const std::string& text, render::Rgba8& out) {
  unsigned r = 0, g = 0, b = 0;
  int consumed = 0;
  if (text.size() != 7 || std::sscanf(text.c_str(), "#%2x%2x%2x%n", &r, &g, &b, &consumed) != 3 || consumed != 7)
    return false;
  out = render::rgba8(static_cast<std::uint8_t>(r), static_cast<std::uint8_t>(g), static_cast<std::uint8_t>(b));
  return true;
}

}  // namespace

std::string user_colors_path() {
  if (const char* forced = std::getenv("WEFT_COLORS"); forced && *forced) return forced;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::string(xdg) + "/weft/colors.json";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.config/weft/colors.json";
  return "";
}

UserColors read_user_colors(const std::string& path) {
  UserColors colors;
  if (path.empty() || !std::filesystem::exists(path)) return colors;
  std::ifstream in(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw Error(path + ": function colors are not valid JSON (delete the file to reset them)");
  }
  if (!j.is_object()) throw Error(path + ": function colors must be a JSON object of \"#rrggbb\" strings");
  for (const auto& [name, value] : j.items()) {
    render::Rgba8 c = 0;
    if (!value.is_string() || !parse_hex_color(value.get<std::string>(), c))
      throw Error(path + ": the color of " + name + " is not a \"#rrggbb\" string");
    colors[name] = c;
  }
  return colors;
}

void write_user_colors(const std::string& path, const UserColors& colors) {
  if (path.empty()) throw Error("no place for the function colors: set HOME, XDG_CONFIG_HOME or WEFT_COLORS");
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, c] : colors) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "#%02x%02x%02x", c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff);
    j[name] = hex;
  }
  std::error_code ec;
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp);
    out << j.dump(2) << "\n";
    if (!out) throw Error(path + ": cannot write the function colors");
  }
  // On the disk before the rename replaces the previous colors.
  if (const int error_number = db::sync_to_disk(temp, O_RDONLY))
    throw Error(path + ": cannot write the function colors (" + db::write_error_text(error_number) + ")");
  std::filesystem::rename(temp, target, ec);
  if (ec) throw Error(path + ": cannot write the function colors (" + ec.message() + ")");
}

void apply_user_colors(const UserColors& colors, const db::RegionTable& regions,
                       std::vector<render::Rgba8>& region_colors) {
  if (colors.empty()) return;
  for (std::size_t i = 0; i < regions.name.size() && i < region_colors.size(); ++i)
    if (auto it = colors.find(regions.name[i]); it != colors.end()) region_colors[i] = it->second;
}

}  // namespace weft::app
