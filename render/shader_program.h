#pragma once
// A linked GLSL program built from two files in the shader directory
// (WEFT_SHADER_DIR, i.e. the source tree's shaders/).
#include <string>

#include "gl_api.h"

namespace weft::render {

class ShaderProgram {
 public:
  // Reads, compiles and links `vertex_file` and `fragment_file` (names relative
  // to the shader directory). Throws weft::Error with the driver's log.
  ShaderProgram(const std::string& vertex_file, const std::string& fragment_file);
  ~ShaderProgram();
  ShaderProgram(const ShaderProgram&) = delete;
  ShaderProgram& operator=(const ShaderProgram&) = delete;

  void use() const { glUseProgram(program_); }
  // Location of a uniform; -1 (ignored by glUniform*) when the driver dropped it.
  GLint uniform(const char* name) const { return glGetUniformLocation(program_, name); }

 private:
  GLuint program_ = 0;
};

// Directory the shader files are read from.
std::string shader_directory();

}  // namespace weft::render
