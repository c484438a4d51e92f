#pragma once
// The one place that includes OpenGL. GLVND's libOpenGL exports the core
// profile entry points directly (GL_GLEXT_PROTOTYPES), so no loader is needed,
// for a GLFW window and for an EGL surfaceless context alike.
#include <GL/gl.h>
#include <GL/glext.h>
