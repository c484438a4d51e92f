#include "particle_instances.h"

#include <algorithm>
#include <cstddef>

#include "instance_buffers.h"

namespace weft::render {

namespace {

// Dead slots may outnumber live particles by this many before a rebuild, so
// that a small field is not rebuilt every few frames.
constexpr std::size_t kSlack = 1 << 16;

}  // namespace

ParticleInstances::ParticleInstances() {
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &buffer_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, buffer_);
  constexpr auto stride = static_cast<GLsizei>(sizeof(ParticleInstance));
  attach_instance_attribute(0, 2, GL_FLOAT, GL_FALSE, stride, offsetof(ParticleInstance, x_share));
  attach_instance_attribute(1, 2, GL_UNSIGNED_INT, GL_FALSE, stride, offsetof(ParticleInstance, start_lo), true);
  attach_instance_attribute(2, 1, GL_FLOAT, GL_FALSE, stride, offsetof(ParticleInstance, duration_ns));
  attach_instance_attribute(3, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, offsetof(ParticleInstance, color));
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

ParticleInstances::~ParticleInstances() {
  glDeleteVertexArrays(1, &vao_);
  glDeleteBuffers(1, &buffer_);
}

void ParticleInstances::sync(ParticleField& field, const ParticleScale& scale) {
  const std::size_t fresh = field.size() - std::min(field.mirrored, field.size());
  const bool stale = field.version != field_version_ || scale.fade_ns != fade_ns_ ||
                     scale.first_process != first_process_ || scale.process_count != process_count_;
  if (stale || slots_ + fresh > capacity_ || slots_ > 2 * field.size() + kSlack) {
    rebuild(field, scale);
    return;
  }
  if (fresh == 0) return;
  glBindBuffer(GL_ARRAY_BUFFER, buffer_);
  write(field, field.size() - fresh, field.size(), scale);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  field.mirrored = field.size();
}

void ParticleInstances::rebuild(ParticleField& field, const ParticleScale& scale) {
  ++rebuilds_;
  field_version_ = field.version;
  fade_ns_ = scale.fade_ns;
  first_process_ = scale.first_process;
  process_count_ = scale.process_count;
  slots_ = 0;
  // Room to append for a while before the next rebuild.
  capacity_ = std::max<std::size_t>(2 * field.size(), kSlack);
  glBindBuffer(GL_ARRAY_BUFFER, buffer_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(capacity_ * sizeof(ParticleInstance)), nullptr,
               GL_DYNAMIC_DRAW);
  write(field, 0, field.size(), scale);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  field.mirrored = field.size();
}

void ParticleInstances::write(const ParticleField& field, std::size_t from, std::size_t to,
                              const ParticleScale& scale) {
  if (to <= from) return;
  staging_.resize(to - from);
  for (std::size_t i = from; i < to; ++i) {
    ParticleInstance& p = staging_[i - from];
    p.x_share = field.x_share[i];
    p.segment = static_cast<float>(scale.segment_of(field.process[i]));
    p.start_lo = time_low_bits(field.start_ns[i]);
    p.start_hi = time_high_bits(field.start_ns[i]);
    p.duration_ns = static_cast<float>(field.end_ns[i] - field.start_ns[i]);
    p.color = field.color[i];
  }
  glBufferSubData(GL_ARRAY_BUFFER, static_cast<GLintptr>(slots_ * sizeof(ParticleInstance)),
                  static_cast<GLsizeiptr>(staging_.size() * sizeof(ParticleInstance)), staging_.data());
  slots_ += staging_.size();
}

}  // namespace weft::render
