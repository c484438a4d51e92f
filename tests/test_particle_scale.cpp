// The rules of the particle scatterplot (particle-animation.txt §3.2): log
// age scale, fading, tone mapping of the history, stable x jitter, history
// deposits and clearing, the live set, and streaming from a database.
// Known answers are worked out by hand from the paper's formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "particle_feed.h"
#include "particle_field.h"
#include "particle_renderer.h"
#include "particle_scale.h"
#include "store/window_query.h"
#include "weft_test_db.h"

using namespace weft;
using namespace weft::render;

TEST(ParticleScale, LogAgeShareIsLnAgeOverLnDmax) {
  // y = ln(age) / ln(dmax): ln(10^3) / ln(10^6) = 1/2.
  EXPECT_NEAR(log_age_share(1e3, 1e6), 0.5, 1e-12);
  EXPECT_NEAR(log_age_share(1e2, 1e6), 1.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(log_age_share(1e6, 1e6), 1.0);
  EXPECT_DOUBLE_EQ(log_age_share(5e6, 1e6), 1.0);  // beyond the ceiling
}

TEST(ParticleScale, ZeroNegativeAndTinyDurationsAreFinite) {
  EXPECT_EQ(log_age_share(0, 1e6), 0.0);
  EXPECT_EQ(log_age_share(-50, 1e6), 0.0);
  EXPECT_EQ(log_age_share(1, 1e6), 0.0);  // ln 1 = 0
  // d_max of 0 or 1 ns would make ln(d_max) 0: taken as 2 ns.
  EXPECT_EQ(log_age_share(2, 0), 1.0);
  EXPECT_EQ(log_age_share(2, 1), 1.0);
  EXPECT_EQ(log_age_share(0, 0), 0.0);
}

TEST(ParticleScale, FadeIsLinearOverTheFadeTime) {
  EXPECT_EQ(particle_fade_alpha(-10, 100), 1.0f);
  EXPECT_EQ(particle_fade_alpha(0, 100), 1.0f);
  EXPECT_FLOAT_EQ(particle_fade_alpha(25, 100), 0.75f);
  EXPECT_EQ(particle_fade_alpha(100, 100), 0.0f);
  EXPECT_EQ(particle_fade_alpha(0, 0), 0.0f);
}

TEST(ParticleScale, ToneMapFormula) {
  // P = C × (Omin + (1 − Omin) · ln D / ln Dmax)
  EXPECT_EQ(history_tone_factor(0, 100, 0.2f), 0.0f);  // nothing deposited
  EXPECT_FLOAT_EQ(history_tone_factor(1, 100, 0.2f), 0.2f);  // ln 1 = 0: Omin
  EXPECT_FLOAT_EQ(history_tone_factor(10, 100, 0.2f), 0.2f + 0.8f * 0.5f);
  EXPECT_FLOAT_EQ(history_tone_factor(100, 100, 0.2f), 1.0f);
  EXPECT_FLOAT_EQ(history_tone_factor(4, 16, 0.0f), 0.5f);
  // Dmax = 1: every deposited pixel is the densest (no 0/0).
  EXPECT_EQ(history_tone_factor(1, 1, 0.2f), 1.0f);
}

TEST(ParticleScale, JitterIsStableAndSpread) {
  std::set<float> seen;
  double sum = 0;
  for (EventId id = 0; id < 10000; ++id) {
    const float j = particle_jitter(id);
    ASSERT_GE(j, 0.0f);
    ASSERT_LT(j, 1.0f);
    EXPECT_EQ(j, particle_jitter(id));
    seen.insert(j);
    sum += j;
  }
  EXPECT_GT(seen.size(), 9990u);
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
  const double x = particle_x_share(2, 77, 4);
  EXPECT_GE(x, 0.5);
  EXPECT_LT(x, 0.75);
}

TEST(ParticleScale, GridIsPowersOfTenUpToDmax) {
  EXPECT_EQ(duration_grid_ns(1.5e6), (std::vector<double>{1, 10, 100, 1e3, 1e4, 1e5, 1e6}));
  EXPECT_EQ(duration_grid_ns(1e3).size(), 4u);
  EXPECT_TRUE(duration_grid_ns(0.5).empty());
}

TEST(ParticleScale, PathByRenderer) {
  EXPECT_EQ(choose_particle_path("llvmpipe (LLVM 15.0.6, 256 bits)", nullptr), ParticlePath::CpuSplat);
  EXPECT_EQ(choose_particle_path("NVIDIA H100/PCIe/SSE2", nullptr), ParticlePath::GpuInstanced);
  EXPECT_EQ(choose_particle_path("llvmpipe", "gpu"), ParticlePath::GpuInstanced);
  EXPECT_EQ(choose_particle_path("NVIDIA", "cpu"), ParticlePath::CpuSplat);
  EXPECT_EQ(choose_particle_path("NVIDIA", ""), ParticlePath::GpuInstanced);
}

TEST(ParticleHistory, DepositsClipsAndClears) {
  ParticleHistory h;
  h.resize(10, 10);
  EXPECT_TRUE(h.empty());
  h.deposit(5, 5, 3, 0, 9, rgba8(255, 0, 0));
  EXPECT_EQ(h.max_density(), 1.0f);
  int filled = 0;
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 10; ++x) filled += h.density(x, y) > 0;
  EXPECT_EQ(filled, 9);
  EXPECT_EQ(h.density(4, 4), 1.0f);
  EXPECT_EQ(h.density(6, 6), 1.0f);
  h.deposit(5, 5, 3, 5, 9, rgba8(255, 0, 0));  // clipped to columns 5..9
  EXPECT_EQ(h.density(4, 5), 1.0f);
  EXPECT_EQ(h.density(5, 5), 2.0f);
  EXPECT_EQ(h.max_density(), 2.0f);
  h.deposit(0, 0, 3, 0, 9, rgba8(0, 0, 255));  // clipped to the corner: 2 × 2
  EXPECT_EQ(h.density(0, 0), 1.0f);
  EXPECT_EQ(h.density(1, 1), 1.0f);

  std::vector<Rgba8> image;
  h.tone_map(0.25f, image);
  EXPECT_EQ(image[5 * 10 + 5], rgba8(255, 0, 0, 255));  // D = Dmax: full opacity
  EXPECT_EQ(image[0], rgba8(0, 0, 255, 64));            // D = 1: Omin = 0.25
  EXPECT_EQ(image[9 * 10 + 9], 0u);                     // never deposited

  h.clear();
  EXPECT_TRUE(h.empty());
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 10; ++x) ASSERT_EQ(h.density(x, y), 0.0f);
  h.tone_map(0.25f, image);
  for (Rgba8 p : image) ASSERT_EQ(p, 0u);
}

TEST(ParticleField, StopsAtLnDurationThenFadesIntoHistory) {
  ParticleScale scale;
  scale.dmax_ns = 1e6;
  scale.fade_ns = 50;
  scale.process_count = 1;
  ParticleField field;
  field.add(7, 0, 1000, 2000, 0, rgba8(1, 2, 3), scale);  // duration 1000 ns
  // Plot of height 101: y = 100 - 100 · ln(age)/ln(1e6). Age 100 at t = 1100: y = 100 - 100/3.
  EXPECT_EQ(particle_pixel(field, 0, 1100, scale, 50, 101).y, 67);
  // Ended: frozen at ln(1000)/ln(1e6) = 1/2, y = 50, however late.
  EXPECT_EQ(particle_pixel(field, 0, 2000, scale, 50, 101).y, 50);
  EXPECT_EQ(particle_pixel(field, 0, 2049, scale, 50, 101).y, 50);
  EXPECT_EQ(field.running(1500), 1u);
  EXPECT_EQ(field.running(2000), 0u);

  ParticleHistory history;
  history.resize(50, 101);
  EXPECT_EQ(field.retire(2049, scale, &history), 0u);
  EXPECT_TRUE(history.empty());
  EXPECT_EQ(field.retire(2050, scale, &history), 1u);
  EXPECT_EQ(field.size(), 0u);
  EXPECT_EQ(history.max_density(), 1.0f);
  const int x = static_cast<int>(std::floor(particle_jitter(7) * 50));
  const int cx = std::clamp(x, 1, 48);
  EXPECT_EQ(history.density(cx, 50), 1.0f);
}

TEST(ParticleField, NegativeDurationStopsAtTheBaseline) {
  ParticleScale scale;
  scale.dmax_ns = 1;  // a run of zero-length events only
  scale.fade_ns = 10;
  ParticleField field;
  field.add(1, 0, 500, 400, 0, rgba8(9, 9, 9), scale);
  EXPECT_EQ(field.end_ns[0], 500);
  EXPECT_EQ(particle_pixel(field, 0, 505, scale, 20, 20).y, 19);
}

namespace {

// Process 0: main (user code, not a particle), an Isend [100, 200] and an
// Allreduce [1000, 3000]; process 1: an Irecv [150, 160] and a Waitall
// [160, 5160] (the longest particle event, 5000 ns).
std::string write_feed_trace() {
  weft::testing::TestTrace trace;
  trace.processes = 2;
  trace.events = {{0, 0, 10000, 0, 0},   {0, 100, 200, 2, 1},   {0, 1000, 3000, 5, 1},
                  {1, 0, 10000, 0, 0},   {1, 150, 160, 3, 1},   {1, 160, 5160, 4, 1}};
  const std::string path = weft::testing::temp_weft_path("particles");
  weft::testing::write_test_weft(path, trace);
  return path;
}

// The scale of the feed trace: d_max 5000 ns, a 100 ns fade, processes
// [first, first + count).
ParticleScale feed_scale(ProcessIndex first, std::size_t count) {
  ParticleScale scale;
  scale.dmax_ns = 5000;
  scale.fade_ns = 100;
  scale.first_process = first;
  scale.process_count = count;
  return scale;
}

}  // namespace

TEST(ParticleFeed, LongestDurationAndMaskSkipUserCode) {
  db::WindowQuery query(write_feed_trace());
  ParticleFeed feed(query, region_colors(query.regions()));
  EXPECT_EQ(feed.longest_duration(), 5000);
  EXPECT_EQ(feed.particle_events(), 4);
}

TEST(ParticleFeed, SeekHoldsWhatIsAliveAndAdvanceAddsStarts) {
  db::WindowQuery query(write_feed_trace());
  ParticleFeed feed(query, region_colors(query.regions()));
  const ParticleScale scale = feed_scale(0, 2);
  ParticleField field;
  // At 250: Isend ended at 200 (fading until 300), Irecv ended at 160 (gone at 260), Waitall running.
  feed.seek(250, scale, field);
  EXPECT_EQ(field.size(), 3u);
  feed.seek(270, scale, field);
  EXPECT_EQ(field.size(), 2u);
  ParticleHistory history;
  history.resize(100, 50);
  // Playing on to 1000 adds the Allreduce and retires the Isend into the history.
  feed.advance(1000, scale, field, &history);
  EXPECT_EQ(field.size(), 2u);
  EXPECT_EQ(history.max_density(), 1.0f);
  std::set<EventId> ids(field.id.begin(), field.id.end());
  EXPECT_EQ(ids.size(), 2u);
}

// A range of processes: only process 1 (its Irecv and Waitall), in the one
// segment that spans the whole width.
TEST(ParticleFeed, ProcessRangeReadsOnlyItsProcesses) {
  db::WindowQuery query(write_feed_trace());
  ParticleFeed feed(query, region_colors(query.regions()));
  const ParticleScale scale = feed_scale(1, 1);
  ParticleField field;
  feed.seek(250, scale, field);  // the Isend of process 0 is alive at 250, but not shown
  ASSERT_EQ(field.size(), 2u);
  for (std::size_t i = 0; i < field.size(); ++i) {
    EXPECT_EQ(field.process[i], 1);
    const ParticlePixel p = particle_pixel(field, i, 250, scale, 100, 50);
    EXPECT_EQ(p.x_lo, 0);
    EXPECT_EQ(p.x_hi, 99);
  }
  ParticleHistory history;
  history.resize(100, 50);
  feed.advance(6000, scale, field, &history);  // the Allreduce of process 0 never comes
  EXPECT_EQ(field.size(), 0u);
  EXPECT_EQ(history.max_density(), 1.0f);
}

namespace {

// 8 processes of 300 events each, random gaps and durations up to ~22 µs.
std::string write_random_feed_trace(const char* name) {
  weft::testing::TestTrace trace;
  trace.processes = 8;
  std::mt19937 rng(3);
  for (int p = 0; p < 8; ++p) {
    TimeNs t = 0;
    for (int k = 0; k < 300; ++k) {
      t += 1 + static_cast<TimeNs>(rng() % 500);
      const TimeNs d = static_cast<TimeNs>(std::exp(static_cast<double>(rng() % 1000) / 100.0));
      trace.events.push_back({p, t, t + d, 2 + static_cast<std::int64_t>(rng() % 4), 0});
      t += d;
    }
  }
  const std::string path = weft::testing::temp_weft_path(name);
  weft::testing::write_test_weft(path, trace);
  return path;
}

void expect_same_particles(const ParticleField& a, const ParticleField& b, const ParticleHistory& ha,
                           const ParticleHistory& hb, const std::string& when) {
  std::multiset<EventId> ia(a.id.begin(), a.id.end()), ib(b.id.begin(), b.id.end());
  EXPECT_EQ(ia, ib) << when;
  for (int y = 0; y < ha.height(); ++y)
    for (int x = 0; x < ha.width(); ++x) ASSERT_EQ(ha.density(x, y), hb.density(x, y)) << when << " at " << x << "," << y;
}

}  // namespace

TEST(ParticleFeed, OneJumpEqualsFrameByFramePlay) {
  const std::string path = write_random_feed_trace("particles_play");
  db::WindowQuery query(path);
  ParticleScale scale;
  scale.process_count = 8;
  scale.fade_ns = 3000;
  ParticleFeed by_frames(query, region_colors(query.regions()));
  scale.dmax_ns = static_cast<double>(by_frames.longest_duration());
  ParticleField f1, f2;
  ParticleHistory h1, h2;
  h1.resize(64, 64);
  h2.resize(64, 64);
  const TimeNs until = query.meta().trace_end_ns * 2 / 3;
  for (TimeNs t = 0; t < until; t += 777) by_frames.advance(t, scale, f1, &h1);
  by_frames.advance(until, scale, f1, &h1);
  db::WindowQuery query2(path);
  ParticleFeed at_once(query2, region_colors(query2.regions()));
  at_once.advance(until, scale, f2, &h2);
  ASSERT_FALSE(h1.empty());
  EXPECT_EQ(h1.max_density(), h2.max_density());
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) ASSERT_EQ(h1.density(x, y), h2.density(x, y)) << x << "," << y;
  std::multiset<EventId> a(f1.id.begin(), f1.id.end()), b(f2.id.begin(), f2.id.end());
  EXPECT_EQ(a, b);
  EXPECT_GT(a.size(), 0u);
}

// Played in chunks of about 40 events, each read ahead on the helper thread
// while the one before it is played, with jumps back and forth between the
// plays (which drop the chunk being read ahead): the same particles and the
// same history, step by step, as one chunk holding the whole run.
TEST(ParticleFeed, ReadAheadChunksGiveWhatOneChunkGives) {
  const std::string path = write_random_feed_trace("particles_chunks");
  db::WindowQuery q1(path), q2(path);
  ParticleFeed chunked(q1, region_colors(q1.regions()), 40);
  ParticleFeed whole(q2, region_colors(q2.regions()), std::int64_t{1} << 30);
  ParticleScale scale;
  scale.process_count = 8;
  scale.fade_ns = 3000;
  scale.dmax_ns = static_cast<double>(whole.longest_duration());
  ParticleField f1, f2;
  ParticleHistory h1, h2;
  h1.resize(64, 64);
  h2.resize(64, 64);
  const TimeNs end = q1.meta().trace_end_ns;
  auto play = [&](TimeNs from, TimeNs to, TimeNs step) {
    for (TimeNs t = from; t <= to; t += step) {
      chunked.advance(t, scale, f1, &h1);
      whole.advance(t, scale, f2, &h2);
      expect_same_particles(f1, f2, h1, h2, "at " + std::to_string(t));
      if (::testing::Test::HasFatalFailure()) return;
    }
  };
  play(0, end / 3, 311);
  chunked.seek(end / 5, scale, f1);  // back, while the next chunk is being read
  whole.seek(end / 5, scale, f2);
  play(end / 5, end / 2, 97);
  chunked.seek(end * 3 / 4, scale, f1);  // forward
  whole.seek(end * 3 / 4, scale, f2);
  play(end * 3 / 4, end + 5000, 523);
  chunked.rewind(f1);
  whole.rewind(f2);
  h1.clear();
  h2.clear();
  play(0, end / 4, 1013);
  EXPECT_GT(f1.size(), 0u);
  EXPECT_FALSE(h1.empty());
}
