#pragma once
// The two steps of every instanced draw's setup: an attribute read once per
// instance from its own buffer, and a buffer refilled from a vector.
#include <vector>

#include "gl_api.h"

namespace weft::render {

// Binds `buffer` to attribute `location` of `vao`, advancing once per instance.
inline void attach_instanced(GLuint vao, GLuint buffer, GLuint location, GLint components, GLenum type,
                             GLboolean normalized) {
  glBindVertexArray(vao);
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glEnableVertexAttribArray(location);
  glVertexAttribPointer(location, components, type, normalized, 0, nullptr);
  glVertexAttribDivisor(location, 1);
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
