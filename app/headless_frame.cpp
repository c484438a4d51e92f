#include "app/headless_frame.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cstdio>

#include "app/timeline_frame.h"
#include "app/ui_scale.h"
#include "png_writer.h"

namespace weft::app {

namespace {

Size scaled(Size size, float scale) {
  return {device_pixels(static_cast<float>(size.width), scale), device_pixels(static_cast<float>(size.height), scale)};
}

}  // namespace

HeadlessFrame::HeadlessFrame(Size size, int samples, float scale)
    : size_(size),
      pixels_(scaled(size, scale)),
      framebuffer_(pixels_.width, pixels_.height, samples),
      imgui_(16.0f, scale) {
  framebuffer_.bind();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(size.width), static_cast<float>(size.height));
  io.DisplayFramebufferScale = ImVec2(static_cast<float>(pixels_.width) / static_cast<float>(size.width),
                                      static_cast<float>(pixels_.height) / static_cast<float>(size.height));
  io.DeltaTime = 1.0f / 60.0f;
}

void HeadlessFrame::begin() {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  framebuffer_.bind();
  begin_timeline_frame(pixels_.width, pixels_.height);
}

void HeadlessFrame::finish(std::vector<std::uint8_t>& pixels) {
  end_timeline_frame();
  framebuffer_.read_rgba(pixels);
}

void HeadlessFrame::finish(const std::string& out) {
  std::vector<std::uint8_t> pixels;
  finish(pixels);
  render::write_png(out, pixels_.width, pixels_.height, pixels);
  std::printf("%s\n", out.c_str());
}

}  // namespace weft::app
