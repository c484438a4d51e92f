#include "app/imgui_session.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include "common/error.h"

namespace weft::app {

ImGuiSession::ImGuiSession(float font_px, float ui_scale) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini litter in the user's directory
  ImGui::StyleColorsDark();
  ImGui::GetStyle().WindowRounding = 4.0f;
  io.FontGlobalScale = 1.0f / ui_scale;  // layout units: the atlas holds ui_scale-times larger glyphs
  if (!io.Fonts->AddFontFromFileTTF(WEFT_FONT_PATH, font_px * ui_scale)) {
    ImGui::DestroyContext();
    throw Error(WEFT_FONT_PATH, "cannot load font (install fonts-dejavu-core)");
  }
  if (!ImGui_ImplOpenGL3_Init("#version 330 core")) {
    ImGui::DestroyContext();
    throw Error("cannot initialize the ImGui OpenGL3 backend");
  }
}

ImGuiSession::~ImGuiSession() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui::DestroyContext();
}

}  // namespace weft::app
