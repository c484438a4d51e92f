#pragma once
// In-process OpenGL for render tests: a headless EGL context, or none (and
// why) on machines without one, for the test to skip.
#include <memory>
#include <string>

#include "common/error.h"
#include "headless_context.h"

namespace weft::testing {

inline std::unique_ptr<render::HeadlessContext> make_context_or_null(std::string& why) {
  try {
    return std::make_unique<render::HeadlessContext>();
  } catch (const Error& e) {
    why = e.what();
    return nullptr;
  }
}

}  // namespace weft::testing
