#include "shader_program.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace weft::render {

namespace {

std::string read_shader_file(const std::string& name) {
  std::string path = shader_directory() + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "cannot read shader");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string first_line(std::string log) {
  auto end = log.find('\n');
  if (end != std::string::npos) log.resize(end);
  return log;
}

GLuint compile_shader(GLenum type, const std::string& name) {
  std::string source = read_shader_file(name);
  GLuint shader = glCreateShader(type);
  const char* text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok == GL_TRUE) return shader;
  char log[2048] = {};
  glGetShaderInfoLog(shader, sizeof log, nullptr, log);
  glDeleteShader(shader);
  throw Error(shader_directory() + "/" + name, "shader does not compile: " + first_line(log));
}

}  // namespace

std::string shader_directory() {
  // An override lets an installed binary find shaders moved out of the source tree.
  if (const char* dir = std::getenv("WEFT_SHADER_DIR"); dir && *dir) return dir;
  return WEFT_SHADER_DIR;
}

ShaderProgram::ShaderProgram(const std::string& vertex_file, const std::string& fragment_file) {
  GLuint vertex = compile_shader(GL_VERTEX_SHADER, vertex_file);
  GLuint fragment = 0;
  try {
    fragment = compile_shader(GL_FRAGMENT_SHADER, fragment_file);
  } catch (...) {
    glDeleteShader(vertex);
    throw;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vertex);
  glAttachShader(program_, fragment);
  glLinkProgram(program_);
  glDeleteShader(vertex);
  glDeleteShader(fragment);
  GLint ok = GL_FALSE;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (ok == GL_TRUE) return;
  char log[2048] = {};
  glGetProgramInfoLog(program_, sizeof log, nullptr, log);
  glDeleteProgram(program_);
  throw Error(vertex_file + " + " + fragment_file, "shaders do not link: " + first_line(log));
}

ShaderProgram::~ShaderProgram() { glDeleteProgram(program_); }

}  // namespace weft::render
