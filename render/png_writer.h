#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace weft::render {

// Writes RGBA8 pixels (top row first) as a PNG. Throws weft::Error naming the
// file when it cannot be written.
void write_png(const std::string& path, int width, int height,
               const std::vector<std::uint8_t>& rgba);

}  // namespace weft::render
