#pragma once
// A 2D texture read one texel per pixel: nearest filtering (a texel is a flat
// cell, never a blend of neighbours) and edges clamped. Shared by every
// image the renderers draw pixel for pixel (level-of-detail cells, particle
// splats, history images and textures).
#include "gl_api.h"

namespace weft::render {

// A new texture with those parameters and no storage yet.
inline GLuint make_texel_texture() {
  GLuint texture = 0;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
  return texture;
}

}  // namespace weft::render
