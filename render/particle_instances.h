#pragma once
// The live particles' instance buffer on the GPU (the instanced path of
// ParticleRenderer), kept in step with a ParticleField by appending only the
// particles added since the last frame.
//
// Re-uploading the whole field every frame capped the GPU path at ~30 fps with
// 1.3M live particles on an H100 (26 MB a frame), no faster than splatting
// on the CPU. Particles the field retires stay in the buffer as dead slots:
// the vertex shader culls them by the same rule (their fade has run out), so
// they cost only a vertex each. The buffer is rebuilt from the field (dead
// slots dropped) when they outnumber the live ones, when it is full, when the
// field was cleared or recolored (its version changed), and when the fade or
// the processes shown change (a longer fade would bring dead slots back).
//
// Start times go in as exact 64-bit integers (two 32-bit halves), the
// duration as a float: the shader subtracts the start from the present in
// integers, so a particle's age is exact however far into the run it is
// (float times from a fixed origin lost whole nanoseconds after a few ms).
#include <cstdint>
#include <vector>

#include "gl_api.h"
#include "particle_field.h"

namespace weft::render {

// One particle as the vertex shader reads it (shaders/particle_point.vert).
struct ParticleInstance {
  float x_share;      // particle_x_share
  float segment;      // the process's segment, 0 for the first shown
  std::uint32_t start_lo;  // start ns, low 32 bits
  std::uint32_t start_hi;  // start ns, high 32 bits (two's complement)
  float duration_ns;
  Rgba8 color;
};
static_assert(sizeof(ParticleInstance) == 24, "the attribute layout assumes 24-byte instances");

// The two 32-bit halves of a time, as the shader's uvec2 attributes and
// uniforms take it: low, then high.
inline std::uint32_t time_low_bits(TimeNs t) { return static_cast<std::uint32_t>(static_cast<std::uint64_t>(t)); }
inline std::uint32_t time_high_bits(TimeNs t) {
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(t) >> 32);
}

class ParticleInstances {
 public:
  // Requires a current OpenGL 3.3 core context.
  ParticleInstances();
  ~ParticleInstances();
  ParticleInstances(const ParticleInstances&) = delete;
  ParticleInstances& operator=(const ParticleInstances&) = delete;

  // Brings the buffer up to `field` (appending or rebuilding, see above) and
  // marks its particles as uploaded (field.mirrored).
  void sync(ParticleField& field, const ParticleScale& scale);
  // Slots to draw: the live particles and the dead ones not yet dropped.
  GLsizei slots() const { return static_cast<GLsizei>(slots_); }
  GLuint vertex_array() const { return vao_; }
  // How many times the buffer was rebuilt (tests: appending must not rebuild).
  std::uint64_t rebuilds() const { return rebuilds_; }

 private:
  void rebuild(ParticleField& field, const ParticleScale& scale);
  void write(const ParticleField& field, std::size_t from, std::size_t to, const ParticleScale& scale);

  GLuint vao_ = 0;
  GLuint buffer_ = 0;
  std::size_t capacity_ = 0;  // instances the buffer holds
  std::size_t slots_ = 0;     // instances written since the last rebuild
  std::uint64_t field_version_ = ~std::uint64_t{0};
  double fade_ns_ = -1;
  ProcessIndex first_process_ = -1;
  std::size_t process_count_ = 0;
  std::uint64_t rebuilds_ = 0;
  std::vector<ParticleInstance> staging_;  // reused
};

}  // namespace weft::render
