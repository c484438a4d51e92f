#include "headless_context.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <string>

#include "common/error.h"
#include "gl_api.h"

namespace weft::render {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw Error("cannot create EGL context: " + what);
}

// The surfaceless platform needs no GPU device node and no display server,
// which is what makes `weft render` work over ssh and in CI.
EGLDisplay open_surfaceless_display() {
  const char* extensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!extensions || std::string(extensions).find("EGL_MESA_platform_surfaceless") ==
                         std::string::npos)
    fail("EGL_MESA_platform_surfaceless is not available");
  auto get_platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!get_platform_display) fail("eglGetPlatformDisplayEXT is not available");
  EGLDisplay display =
      get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (display == EGL_NO_DISPLAY) fail("no surfaceless display");
  EGLint major = 0;
  EGLint minor = 0;
  if (!eglInitialize(display, &major, &minor)) fail("eglInitialize failed");
  return display;
}

}  // namespace

HeadlessContext::HeadlessContext() {
  EGLDisplay display = open_surfaceless_display();
  display_ = display;
  try {
    if (!eglBindAPI(EGL_OPENGL_API)) fail("eglBindAPI(EGL_OPENGL_API) failed");
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                     EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config = nullptr;
    EGLint count = 0;
    // Surfaceless contexts need no surface type; retry without it if no
    // pbuffer-capable config exists.
    if (!eglChooseConfig(display, config_attribs, &config, 1, &count) || count == 0) {
      const EGLint any_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
      if (!eglChooseConfig(display, any_attribs, &config, 1, &count) || count == 0)
        fail("no OpenGL-capable EGL config");
    }
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION,
                                      3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
    if (context == EGL_NO_CONTEXT) fail("no OpenGL 3.3 core context");
    context_ = context;
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
      fail("eglMakeCurrent without a surface failed");
  } catch (...) {
    if (context_) eglDestroyContext(display, context_);
    eglTerminate(display);
    throw;
  }
}

HeadlessContext::~HeadlessContext() {
  eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display_, context_);
  eglTerminate(display_);
}

std::string HeadlessContext::renderer() const {
  const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return name ? name : "";
}

}  // namespace weft::render
