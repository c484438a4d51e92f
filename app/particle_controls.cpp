#include "app/particle_controls.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/user_colors.h"
#include "common/error.h"

#include "time_ticks.h"

namespace weft::app {

namespace {

// One color picker per particle function; a change is saved at once
// (user_colors.h), so it is that function's color in every later run.
void draw_color_popup(ParticleView& view, const TraceInfo& info) {
  if (!ImGui::BeginPopup("particle colors")) return;
  for (std::int32_t r : view.legend_regions()) {
    const render::Rgba8 c = view.colors()[static_cast<std::size_t>(r)];
    float rgb[3] = {static_cast<float>(c & 0xff) / 255.0f, static_cast<float>((c >> 8) & 0xff) / 255.0f,
                    static_cast<float>((c >> 16) & 0xff) / 255.0f};
    const std::string& name = info.regions.name[static_cast<std::size_t>(r)];
    if (!ImGui::ColorEdit3(name.c_str(), rgb, ImGuiColorEditFlags_NoInputs)) continue;
    const render::Rgba8 picked = render::rgba8(static_cast<std::uint8_t>(rgb[0] * 255.0f + 0.5f),
                                               static_cast<std::uint8_t>(rgb[1] * 255.0f + 0.5f),
                                               static_cast<std::uint8_t>(rgb[2] * 255.0f + 0.5f));
    view.set_region_color(r, picked);
    try {
      const std::string path = user_colors_path();
      UserColors saved = read_user_colors(path);
      saved[name] = picked;
      write_user_colors(path, saved);
    } catch (const Error& e) {
      std::fprintf(stderr, "weft: %s\n", e.what());
    }
  }
  ImGui::EndPopup();
}

}  // namespace

void draw_particle_controls(ParticleControls& controls, ParticleView& view, const TraceInfo& info,
                            const render::PixelRect& area) {
  ImGui::SetNextWindowPos(ImVec2(area.x, area.y + 4.0f), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(area.width - 4.0f, 0), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(0.85f);
  ImGui::Begin("Particles", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoCollapse);
  if (ImGui::Button(controls.playing ? "pause" : "play", ImVec2(60, 0))) controls.playing = !controls.playing;
  ImGui::SameLine();
  if (ImGui::Button("clear history")) view.clear_history();
  ImGui::SameLine();
  ImGui::TextDisabled("%s", render::particle_path_name(view.path()));
  ParticleSettings& s = view.settings();
  // The data time step in µs (the sliding window's width, §3.2.2).
  double step_us = s.step_ns / 1000.0;
  ImGui::SetNextItemWidth(0.45f * area.width);
  if (ImGui::InputDouble("data step (\xc2\xb5s)", &step_us, 0.0, 0.0, "%.3f"))
    s.step_ns = std::max(1.0, step_us * 1000.0);
  auto fps = static_cast<float>(s.frames_per_s);
  ImGui::SetNextItemWidth(0.45f * area.width);
  if (ImGui::SliderFloat("frames/s", &fps, 1.0f, 120.0f, "%.0f")) s.frames_per_s = fps;
  auto fade = static_cast<float>(s.fade_s);
  ImGui::SetNextItemWidth(0.45f * area.width);
  if (ImGui::SliderFloat("fade (s)", &fade, 0.0f, 10.0f, "%.1f")) s.fade_s = fade;
  ImGui::SetNextItemWidth(0.45f * area.width);
  ImGui::SliderFloat("O min", &s.omin, 0.0f, 1.0f, "%.2f");
  // The processes shown, applied when the drag ends: each new range reloads
  // the particles alive now and starts a new history.
  const int last = static_cast<int>(std::max<std::size_t>(info.processes.size(), 1)) - 1;
  if (!controls.dragging_processes) {
    controls.process_lo = static_cast<int>(view.first_process());
    controls.process_hi = controls.process_lo + static_cast<int>(view.shown_processes()) - 1;
  }
  ImGui::SetNextItemWidth(0.45f * area.width);
  ImGui::DragIntRange2("processes", &controls.process_lo, &controls.process_hi, 0.25f, 0, last);
  controls.dragging_processes = ImGui::IsItemActive();
  if (ImGui::IsItemDeactivatedAfterEdit())
    view.set_processes(static_cast<ProcessIndex>(controls.process_lo), static_cast<ProcessIndex>(controls.process_hi));
  ImGui::Text("%zu live, %zu running", view.live_particles(), view.running_particles());
  ImGui::SameLine();
  if (ImGui::Button("colors...")) ImGui::OpenPopup("particle colors");
  draw_color_popup(view, info);
  if (!controls.playing) ImGui::TextDisabled("paused: hover a particle for its event");
  ImGui::End();
}

bool step_particle_animation(ParticleControls& controls, ParticleView& view, double now_s, TimeNs end_ns) {
  if (!controls.playing) {
    controls.last_frame_s = -1;
    return false;
  }
  const double interval = 1.0 / std::max(view.settings().frames_per_s, 1e-3);
  if (controls.last_frame_s >= 0 && now_s - controls.last_frame_s < interval) return false;
  controls.last_frame_s = now_s;
  view.play_frame();
  if (view.now() >= end_ns) controls.playing = false;
  return true;
}

}  // namespace weft::app
