// The GPU path's instance buffer (render/particle_instances.h) played frame
// by frame, against the CPU splat, the reference drawing of
// particle-animation.txt §3.2.2: every frame both paths draw the same pixels,
// while the buffer is only appended to (rebuilt once), its dead slots are
// dropped once they outnumber the live particles, and clearing, recoloring or
// a new fade rebuild it. The run starts 7 s in, where a float time from a
// fixed origin is 512 ns coarse, and the events last 1 ns to 40 µs: each
// particle's height shows whether its age was exact.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "framebuffer.h"
#include "gl_test_support.h"
#include "particle_field.h"
#include "particle_history.h"
#include "particle_instances.h"
#include "particle_renderer.h"

using namespace weft;
using namespace weft::render;
using weft::testing::make_context_or_null;

namespace {

constexpr int kWidth = 200, kHeight = 120;  // the plot fills the framebuffer
constexpr int kProcesses = 40;              // 5 px segments: a 3 px dot fits
constexpr int kEventsPerProcess = 12;
constexpr TimeNs kBase = 7'000'000'000;
constexpr TimeNs kPeriod = 100'000;  // between a process's events: > longest + fade
constexpr double kFadeNs = 30'000;
constexpr TimeNs kStep = 7'000;  // data time per frame

struct Event {
  EventId id;
  ProcessIndex process;
  TimeNs start;
  TimeNs end;
};

// Each process's events one after another, durations from 1 ns up to 40 µs,
// staggered between processes; sorted by start, as the feed adds them.
std::vector<Event> make_events() {
  std::vector<Event> events;
  EventId id = 0;
  for (int j = 0; j < kEventsPerProcess; ++j)
    for (int p = 0; p < kProcesses; ++p) {
      const TimeNs start = kBase + j * kPeriod + p * 1'733;
      const TimeNs duration = TimeNs{1} << ((p + j) % 16);  // 1 ns .. 32.8 µs
      events.push_back({id++, p, start, start + duration + (p == 7 ? 40'000 - 32'768 : 0)});
    }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.start < b.start; });
  return events;
}

Rgba8 color_of(ProcessIndex p) {
  return rgba8(static_cast<std::uint8_t>(60 + 4 * p), static_cast<std::uint8_t>(220 - 3 * p), 90);
}

std::vector<std::uint8_t> draw(ParticleRenderer& renderer, Framebuffer& fb, ParticleField& field, TimeNs now,
                               const ParticleScale& scale, ParticleHistory& history) {
  fb.bind();
  glClearColor(0, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  renderer.draw({0, 0, kWidth, kHeight}, kWidth, kHeight, field, now, scale, history, 0.3f);
  std::vector<std::uint8_t> pixels;
  fb.read_rgba(pixels);
  return pixels;
}

// Pixels whose channels differ by more than rounding.
int differing_pixels(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  int n = 0;
  for (std::size_t i = 0; i + 3 < a.size(); i += 4)
    for (std::size_t c = 0; c < 3; ++c)
      if (std::abs(int{a[i + c]} - int{b[i + c]}) > 2) {
        ++n;
        break;
      }
  return n;
}

int lit_pixels(const std::vector<std::uint8_t>& rgba) {
  int n = 0;
  for (std::size_t i = 0; i + 3 < rgba.size(); i += 4) n += rgba[i] + rgba[i + 1] + rgba[i + 2] > 0;
  return n;
}

}  // namespace

TEST(RenderParticleInstances, PlayedFramesAppendAndDrawWhatTheCpuSplatDraws) {
  std::string why;
  auto context = make_context_or_null(why);
  if (!context) GTEST_SKIP() << "no headless OpenGL here: " << why;
  Framebuffer fb(kWidth, kHeight, 1);
  ParticleRenderer cpu(ParticlePath::CpuSplat), gpu(ParticlePath::GpuInstanced);
  ASSERT_NE(gpu.instances(), nullptr);
  // Both histories stay empty: the retired particles are not deposited, so
  // the frames hold the live particles alone.
  ParticleHistory cpu_history(ParticleHistory::Store::Cpu), gpu_history(ParticleHistory::Store::Gpu);
  cpu_history.resize(kWidth, kHeight);
  gpu_history.resize(kWidth, kHeight);
  ParticleScale scale;
  scale.dmax_ns = 40'000;
  scale.fade_ns = kFadeNs;
  scale.process_count = kProcesses;

  const std::vector<Event> events = make_events();
  ParticleField field;
  std::size_t next = 0;
  int frames = 0, busiest = 0;
  std::size_t most_slots = 0;
  for (TimeNs now = kBase; next < events.size() || field.size() > 0; now += kStep, ++frames) {
    for (; next < events.size() && events[next].start <= now; ++next) {
      const Event& e = events[next];
      field.add(e.id, e.process, e.start, e.end, 0, color_of(e.process), scale);
    }
    field.retire(now, scale, nullptr);
    const auto want = draw(cpu, fb, field, now, scale, cpu_history);
    const auto got = draw(gpu, fb, field, now, scale, gpu_history);
    ASSERT_EQ(differing_pixels(want, got), 0) << "frame " << frames << " at " << now - kBase << " ns";
    busiest = std::max(busiest, lit_pixels(want));
    most_slots = std::max<std::size_t>(most_slots, static_cast<std::size_t>(gpu.instances()->slots()));
  }
  EXPECT_GT(frames, 150);
  EXPECT_GT(busiest, 40 * 9 / 2);  // about half the processes show a whole dot at once
  // Appended frame by frame: one build, at the first frame; the 480 particles
  // never outgrow the first buffer nor its slack for dead slots.
  EXPECT_EQ(gpu.instances()->rebuilds(), 1u);
  EXPECT_EQ(most_slots, events.size());

  // Clearing, recoloring and a new fade each rebuild it, once.
  const TimeNs now = kBase + kPeriod;
  for (const Event& e : events)
    if (e.start <= now && now < e.end + static_cast<TimeNs>(kFadeNs))
      field.add(e.id, e.process, e.start, e.end, e.process % 2, color_of(e.process), scale);
  draw(gpu, fb, field, now, scale, gpu_history);
  EXPECT_EQ(gpu.instances()->rebuilds(), 1u);  // only appended
  field.recolor(1, rgba8(250, 250, 20));
  const auto recolored = draw(gpu, fb, field, now, scale, gpu_history);
  EXPECT_EQ(gpu.instances()->rebuilds(), 2u);
  EXPECT_EQ(differing_pixels(draw(cpu, fb, field, now, scale, cpu_history), recolored), 0);
  scale.fade_ns = 2 * kFadeNs;
  draw(gpu, fb, field, now, scale, gpu_history);
  EXPECT_EQ(gpu.instances()->rebuilds(), 3u);
  field.clear();
  const auto empty = draw(gpu, fb, field, now, scale, gpu_history);
  EXPECT_EQ(gpu.instances()->rebuilds(), 4u);
  EXPECT_EQ(lit_pixels(empty), 0);
}

TEST(RenderParticleInstances, DeadSlotsAreDroppedWhenTheyOutnumberTheLiveOrFillTheBuffer) {
  std::string why;
  auto context = make_context_or_null(why);
  if (!context) GTEST_SKIP() << "no headless OpenGL here: " << why;
  Framebuffer fb(kWidth, kHeight, 1);
  ParticleRenderer gpu(ParticlePath::GpuInstanced);
  ParticleHistory history(ParticleHistory::Store::Gpu);
  history.resize(kWidth, kHeight);
  ParticleScale scale;
  scale.dmax_ns = 1'000'000;
  scale.fade_ns = 0;  // a particle retires as it ends
  scale.process_count = kProcesses;
  ParticleField field;
  auto frame = [&](TimeNs now) {
    field.retire(now, scale, nullptr);
    draw(gpu, fb, field, now, scale, history);
    return static_cast<std::size_t>(gpu.instances()->slots());
  };

  // 100,000 particles, the k-th ending k + 1 ns after the base; none added later.
  for (int k = 0; k < 100'000; ++k)
    field.add(k, k % kProcesses, kBase - 1, kBase + k + 1, 0, color_of(k % kProcesses), scale);
  EXPECT_EQ(frame(kBase), 100'000u);
  EXPECT_EQ(gpu.instances()->rebuilds(), 1u);
  // 1,000 retire a frame. The slots stay until the dead outnumber the live
  // by more than the slack: 100,000 > 2 × live + 65,536 once fewer than
  // 17,232 are live, at the 83rd frame (17,000 live).
  int frames = 1;
  for (; gpu.instances()->rebuilds() == 1 && frames < 100; ++frames) {
    const std::size_t slots = frame(kBase + frames * 1'000);
    if (gpu.instances()->rebuilds() == 1) {
      ASSERT_EQ(slots, 100'000u) << "frame " << frames;
    }
  }
  EXPECT_EQ(frames - 1, 83);
  EXPECT_EQ(gpu.instances()->slots(), 17'000);

  // Then 1,000 particles a frame that end within it: every frame leaves the
  // field empty, and the buffer fills with dead slots, up to its capacity
  // (65,536, the slack: the field was small at its rebuild). Filled every
  // 65 frames: 200 frames rebuild it 3 or 4 times.
  const std::uint64_t before = gpu.instances()->rebuilds();
  std::size_t most_slots = 0;
  EventId id = 100'000;
  for (int f = 0; f < 200; ++f) {
    const TimeNs now = kBase + 200'000 + f * 1'000;
    for (int k = 0; k < 1'000; ++k)
      field.add(id++, k % kProcesses, now - 10, now - 5, 0, color_of(k % kProcesses), scale);
    draw(gpu, fb, field, now, scale, history);  // ended, unretired, no fade: not drawn
    most_slots = std::max<std::size_t>(most_slots, static_cast<std::size_t>(gpu.instances()->slots()));
    field.retire(now, scale, nullptr);
    ASSERT_EQ(field.size(), 0u);
  }
  EXPECT_GE(gpu.instances()->rebuilds() - before, 3u);
  EXPECT_LE(gpu.instances()->rebuilds() - before, 4u);
  EXPECT_LE(most_slots, std::size_t{1} << 16);
}
