#pragma once
// Reading rendered PNGs in tests. Include from exactly one file of a test
// executable: it compiles stb_image's PNG decoder (Debian's libstb-dev).
#include <cstdint>
#include <string>

#include "region_palette.h"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wshadow"
#endif
#include <stb/stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace weft::testing {

// An RGBA image loaded from a PNG file; `ok()` is false when it could not be read.
class Png {
 public:
  explicit Png(const std::string& path) {
    int channels = 0;
    pixels_ = stbi_load(path.c_str(), &width_, &height_, &channels, 4);
  }
  ~Png() { stbi_image_free(pixels_); }
  Png(const Png&) = delete;
  Png& operator=(const Png&) = delete;

  bool ok() const { return pixels_ != nullptr; }
  int width() const { return width_; }
  int height() const { return height_; }
  render::Rgba8 pixel(int x, int y) const {
    const stbi_uc* p = pixels_ + (static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) +
                                  static_cast<std::size_t>(x)) * 4;
    return render::rgba8(p[0], p[1], p[2], p[3]);
  }
  // How many pixels have exactly `color`.
  long count(render::Rgba8 color) const {
    long n = 0;
    for (int y = 0; y < height_; ++y)
      for (int x = 0; x < width_; ++x) n += pixel(x, y) == color;
    return n;
  }

 private:
  int width_ = 0;
  int height_ = 0;
  stbi_uc* pixels_ = nullptr;
};

}  // namespace weft::testing
