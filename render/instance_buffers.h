#pragma once
// The two steps of every instanced draw's setup: an attribute read once per
// instance (from its own buffer, or from a field of interleaved instances),
// and a buffer refilled from a vector.
#include <cstddef>
#include <vector>

#include "gl_api.h"

namespace weft::render {

// Attribute `location` of the bound vertex array reads the bound array
// buffer's instances, `stride` bytes apart (0: packed), at `offset` in each,
// advancing once per instance. `integer`: the shader reads it as int/uint
// (glVertexAttribIPointer), else as float, normalized when `normalized`.
inline void attach_instance_attribute(GLuint location, GLint components, GLenum type, GLboolean normalized,
                                      GLsizei stride = 0, std::size_t offset = 0, bool integer = false) {
  const auto* pointer = reinterpret_cast<const void*>(offset);
  glEnableVertexAttribArray(location);
  if (integer)
    glVertexAttribIPointer(location, components, type, stride, pointer);
  else
    glVertexAttribPointer(location, components, type, normalized, stride, pointer);
  glVertexAttribDivisor(location, 1);
}

// Binds `buffer` to attribute `location` of `vao`, advancing once per instance.
inline void attach_instanced(GLuint vao, GLuint buffer, GLuint location, GLint components, GLenum type,
                             GLboolean normalized) {
  glBindVertexArray(vao);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  attach_instance_attribute(location, components, type, normalized);
}

// Orphans and refills `buffer`: the driver need not wait for draws that still
// read the old data. `usage`: GL_STATIC_DRAW for data kept many frames,
// GL_STREAM_DRAW for data replaced about every frame.
template <typename T>
void upload_array(GLuint buffer, const std::vector<T>& data, GLenum usage = GL_STATIC_DRAW) {
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(data.size() * sizeof(T)),
               data.empty() ? nullptr : data.data(), usage);
}

}  // namespace weft::render
