#include "app/tour_player.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/overlay_style.h"

namespace weft::app {

TourPlayer::TourPlayer(DemoTour tour, db::WindowQuery& query, const TraceInfo& info, double frames_per_s)
    : tour_(std::move(tour)), query_(query), info_(info), frames_per_s_(frames_per_s) {}

TourPlayer::~TourPlayer() = default;

void TourPlayer::draw(double t_s, const render::PixelRect& area, int fb_w, int fb_h) {
  std::size_t k = 0;
  double start = 0;
  while (k + 1 < tour_.keyframes.size() && t_s >= start + tour_.keyframes[k].seconds)
    start += tour_.keyframes[k++].seconds;
  const TourKeyframe& frame = tour_.keyframes[k];
  if (k != current_) {
    view_.reset();  // one view's GL objects at a time
    view_ = make_animated_view(keyframe_spec(frame, info_.meta.trace_end_ns, info_.processes.size(), frames_per_s_),
                               query_, info_);
    current_ = k;
  }
  const float caption_px = frame.caption.empty() ? 0.0f : 2.2f * ImGui::GetTextLineHeight();
  const render::PixelRect view_area{area.x, area.y, area.width, area.height - caption_px};
  view_->draw_at(std::clamp((t_s - start) / frame.seconds, 0.0, 1.0), view_area, fb_w, fb_h);
  if (caption_px > 0) {
    ImDrawList* draw = ImGui::GetForegroundDrawList();
    const float y = area.y + area.height - caption_px;
    draw->AddRectFilled(ImVec2(area.x, y), ImVec2(area.x + area.width, area.y + area.height),
                        IM_COL32(10, 10, 14, 235));
    char counter[32];
    std::snprintf(counter, sizeof counter, "%zu / %zu", k + 1, tour_.keyframes.size());
    const float cw = ImGui::CalcTextSize(counter).x;
    const float line = ImGui::GetTextLineHeight();
    draw->AddText(ImVec2(area.x + kMargin, y + 0.5f * (caption_px - line)), kTextColor, frame.caption.c_str());
    draw->AddText(ImVec2(area.x + area.width - cw - kMargin, y + 0.5f * (caption_px - line)), kDimTextColor,
                  counter);
  }
}

}  // namespace weft::app
