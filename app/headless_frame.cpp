#include "app/headless_frame.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cstdio>

#include "app/timeline_frame.h"
#include "png_writer.h"

namespace weft::app {

HeadlessFrame::HeadlessFrame(Size size, int samples)
    : size_(size), framebuffer_(size.width, size.height, samples), imgui_(16.0f) {
  framebuffer_.bind();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(size.width), static_cast<float>(size.height));
  io.DeltaTime = 1.0f / 60.0f;
}

void HeadlessFrame::begin() {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  framebuffer_.bind();
  begin_timeline_frame(size_.width, size_.height);
}

void HeadlessFrame::finish(std::vector<std::uint8_t>& pixels) {
  end_timeline_frame();
  framebuffer_.read_rgba(pixels);
}

void HeadlessFrame::finish(const std::string& out) {
  std::vector<std::uint8_t> pixels;
  finish(pixels);
  render::write_png(out, size_.width, size_.height, pixels);
  std::printf("%s\n", out.c_str());
}

}  // namespace weft::app
