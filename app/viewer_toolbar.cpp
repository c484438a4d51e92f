#include "app/viewer_toolbar.h"

#include <imgui.h>

#include <algorithm>
#include <string>

namespace weft::app {

namespace {

void color_combo(LogicalColor& color, bool task) {
  ImGui::TextUnformatted("color");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(190.0f);
  if (ImGui::BeginCombo("##color", logical_color_title(color, task))) {
    for (LogicalColor c : {LogicalColor::Lateness, LogicalColor::DiffLateness, LogicalColor::GlobalLateness,
                           LogicalColor::Duration, LogicalColor::Function})
      if (ImGui::Selectable(logical_color_title(c, task), c == color)) color = c;
    ImGui::EndCombo();
  }
}

// One checkbox per region, in the legend's order, with all/none.
void function_popup(ToolbarState& state, const TraceInfo& info) {
  if (ImGui::Button("functions..."))
    ImGui::OpenPopup("functions");
  if (!ImGui::BeginPopup("functions")) return;
  if (ImGui::Button("show all")) {
    std::fill(state.region_hidden.begin(), state.region_hidden.end(), 0);
    state.filter_changed = true;
  }
  ImGui::SameLine();
  if (ImGui::Button("hide all")) {
    std::fill(state.region_hidden.begin(), state.region_hidden.end(), 1);
    state.filter_changed = true;
  }
  ImGui::Separator();
  for (std::int32_t r : info.legend_order) {
    auto i = static_cast<std::size_t>(r);
    bool shown = !state.region_hidden[i];
    ImGui::PushID(r);
    if (ImGui::Checkbox(info.regions.name[i].c_str(), &shown)) {
      state.region_hidden[i] = shown ? 0 : 1;
      state.filter_changed = true;
    }
    ImGui::PopID();
  }
  ImGui::EndPopup();
}

}  // namespace

void draw_viewer_toolbar(ToolbarState& state, const TraceInfo& info, bool has_structure,
                         bool loading, float height, const std::vector<ProcessIndex>& selected) {
  state.region_hidden.resize(info.regions.size(), 0);
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetIO().DisplaySize.x, height));
  ImGui::Begin("toolbar", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoSavedSettings);
  ImGui::Checkbox("particles", &state.particles);
  ImGui::SameLine();
  if (state.charm_run) {
    ImGui::Checkbox("usage profile", &state.profile);
    ImGui::SameLine();
  }
  if (state.has_vps) {
    ImGui::Checkbox("virtual ranks", &state.vps);
    ImGui::SameLine();
  }
  if (has_structure) {
    color_combo(state.color, state.task_labels);
    ImGui::SameLine();
  }
  ImGui::TextUnformatted("processes");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(170.0f);
  // Applied on Enter: a half-typed list must not reload the views.
  if (ImGui::InputTextWithHint("##processes", "all, or 0-1023:2,4096", state.processes.data(),
                               state.processes.size(), ImGuiInputTextFlags_EnterReturnsTrue))
    state.filter_changed = true;
  if (!selected.empty()) {
    ImGui::SameLine();
    if (ImGui::Button("selected only")) {
      std::string list;
      for (ProcessIndex p : selected) list += (list.empty() ? "" : ",") + std::to_string(p);
      list.copy(state.processes.data(), state.processes.size() - 1);
      state.processes[std::min(list.size(), state.processes.size() - 1)] = '\0';
      state.filter_changed = true;
    }
  }
  if (state.task_labels) {
    // A task run's logical rows are chares: their own list, rows as labelled.
    ImGui::SameLine();
    ImGui::TextUnformatted("chares");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(130.0f);
    if (ImGui::InputTextWithHint("##chares", "all, or 0-63", state.chares.data(), state.chares.size(),
                                 ImGuiInputTextFlags_EnterReturnsTrue))
      state.filter_changed = true;
  }
  ImGui::SameLine();
  function_popup(state, info);
  ImGui::SameLine();
  ImGui::TextUnformatted("search");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(150.0f);
  if (ImGui::InputTextWithHint("##search", "function name", state.search.data(), state.search.size()))
    state.filter_changed = true;
  ImGui::SameLine();
  if (!state.error.empty())
    ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", state.error.c_str());
  else if (!has_structure)
    ImGui::TextDisabled("no logical structure: `weft analyze` adds it");
  else
    ImGui::TextDisabled("%s", loading ? "loading..." : "wheel zoom, shift+wheel rows, drag pan, WASD, Home, Ctrl+Z");
  ImGui::End();
}

}  // namespace weft::app
