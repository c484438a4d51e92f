#pragma once
// The accumulated background of the particle scatterplot (particle-
// animation.txt §3.2.2, "history"): a density and a color sum per pixel of
// the plot. A particle whose fade has run out is deposited once at its
// stopping point; the background shows
// P = C × (O_min + (1 − O_min) · ln D / ln D_max) (history_tone_factor).
//
// Two stores, one per particle path (particle_renderer.h):
//  - Cpu: float arrays here, tone mapped here into an image the renderer
//    uploads when it changed (software renderers, with the CPU splat);
//  - Gpu: the history textures of the paper, float render targets on the
//    GPU (history_textures.h); deposits wait here, in `pending()`, until the
//    renderer draws them into the textures, and D_max is found there too.
#include <cstdint>
#include <vector>

#include "region_palette.h"

namespace weft::render {

// One particle laid into the history: a dot of `dot` × `dot` pixels centred at
// (x, y), clipped to columns [x_lo, x_hi] (its process segment) and the plot.
struct HistoryDeposit {
  std::int32_t x, y, x_lo, x_hi;
  Rgba8 color;
};

class ParticleHistory {
 public:
  enum class Store { Cpu, Gpu };
  explicit ParticleHistory(Store store = Store::Cpu) : store_(store) {}

  Store store() const { return store_; }
  // Empties it and sets its size; a plot of another size starts a new history.
  void resize(int width, int height);
  int width() const { return width_; }
  int height() const { return height_; }
  // Adds one particle of `color` (a `dot` × `dot` square, see HistoryDeposit).
  void deposit(int x, int y, int dot, int x_lo, int x_hi, Rgba8 color);
  void clear();
  bool empty() const { return deposits_ == 0; }
  // Particles deposited since the last clear.
  std::int64_t deposits() const { return deposits_; }
  // Changes since the last clear: a renderer holding a copy starts over
  // when this moved (resize and clear bump it).
  std::uint64_t generation() const { return generation_; }

  // Cpu store only.
  float max_density() const { return max_density_; }
  float density(int x, int y) const { return density_[index(x, y)]; }
  // Changes since the last tone_map, so an unchanged background is not redone.
  bool dirty() const { return dirty_; }
  // The tone mapped background as straight-alpha RGBA8: the mean deposited
  // color, opacity history_tone_factor(D, D_max, omin).
  void tone_map(float omin, std::vector<Rgba8>& out);

  // Gpu store only: the deposits not yet drawn into the textures, in order;
  // the renderer empties it.
  std::vector<HistoryDeposit>& pending() { return pending_; }
  int dot() const { return dot_; }

 private:
  std::size_t index(int x, int y) const {
    return static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x);
  }
  Store store_;
  int width_ = 0;
  int height_ = 0;
  int dot_ = 1;
  std::int64_t deposits_ = 0;
  std::uint64_t generation_ = 0;
  std::vector<float> density_;
  std::vector<float> color_sum_;  // r, g, b per pixel, 0..255 each deposit
  float max_density_ = 0;
  bool dirty_ = true;
  std::vector<HistoryDeposit> pending_;
};

}  // namespace weft::render
