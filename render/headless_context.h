#pragma once
// An OpenGL 3.3 core context with no window and no display server: EGL on
// Mesa's surfaceless platform. Rendering goes into a Framebuffer (FBO); the
// context is current on the constructing thread for its whole life.
#include <string>

namespace weft::render {

class HeadlessContext {
 public:
  // Throws weft::Error("cannot create EGL context: ...") when EGL, the
  // surfaceless platform or a 3.3 core context is unavailable.
  HeadlessContext();
  ~HeadlessContext();
  HeadlessContext(const HeadlessContext&) = delete;
  HeadlessContext& operator=(const HeadlessContext&) = delete;

  // GL_RENDERER of the context, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
  std::string renderer() const;

 private:
  void* display_ = nullptr;  // EGLDisplay
  void* context_ = nullptr;  // EGLContext
};

}  // namespace weft::render
