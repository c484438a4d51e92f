#pragma once
// Function colors the user picked (the particle panel's "colors..." popup),
// kept between runs in a small JSON file, {"MPI_Send": "#3465c8", ...}: at
// $WEFT_COLORS when set, else $XDG_CONFIG_HOME/weft/colors.json, else
// ~/.config/weft/colors.json. Every view of every run reads it when it opens
// (read_trace_info), so a color chosen once is that function's color everywhere.
#include <map>
#include <string>
#include <vector>

#include "region_palette.h"

namespace weft::db {
struct RegionTable;
}

namespace weft::app {

using UserColors = std::map<std::string, render::Rgba8>;  // by function name

// Where the colors are kept ("" when neither HOME nor XDG_CONFIG_HOME is set).
std::string user_colors_path();
// The colors in `path`; none when the file does not exist. Throws weft::Error
// naming the file when it is not such a JSON object of "#rrggbb" strings.
UserColors read_user_colors(const std::string& path);
// Writes `colors` to `path` (through a temporary file and a rename), making
// its folder. Throws weft::Error naming the file when it cannot.
void write_user_colors(const std::string& path, const UserColors& colors);
// Replaces the colors of the regions `colors` names, by region position.
void apply_user_colors(const UserColors& colors, const db::RegionTable& regions,
                       std::vector<render::Rgba8>& region_colors);

}  // namespace weft::app
