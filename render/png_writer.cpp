#include "png_writer.h"

#include "common/error.h"

// stb's implementation lives in this one translation unit.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO_FALLBACK_WARNING
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace weft::render {

void write_png(const std::string& path, int width, int height,
               const std::vector<std::uint8_t>& rgba) {
  if (rgba.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4)
    throw Error(path, "internal: pixel buffer does not match the image size");
  if (!stbi_write_png(path.c_str(), width, height, 4, rgba.data(), width * 4))
    throw Error(path, "cannot write PNG");
}

}  // namespace weft::render
