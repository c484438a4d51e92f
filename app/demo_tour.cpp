#include "app/demo_tour.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "app/headless_options.h"
#include "common/error.h"

namespace weft::app {

double DemoTour::total_seconds() const {
  double total = 0;
  for (const TourKeyframe& k : keyframes) total += k.seconds;
  return total;
}

namespace {

std::string text_field(const nlohmann::json& j, const char* key, const std::string& fallback,
                       const std::string& where) {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_string()) throw Error(where + ": \"" + key + "\" must be a string");
  return j[key].get<std::string>();
}

}  // namespace

DemoTour read_demo_tour(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot read the tour file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": not a JSON tour (" + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("keyframes") || !j["keyframes"].is_array() || j["keyframes"].empty())
    throw Error(path + ": a tour needs a non-empty \"keyframes\" array");
  DemoTour tour;
  const std::string run = text_field(j, "run", "", path);
  if (!run.empty()) tour.run = (std::filesystem::path(path).parent_path() / run).string();
  for (std::size_t i = 0; i < j["keyframes"].size(); ++i) {
    const nlohmann::json& f = j["keyframes"][i];
    const std::string where = path + ": keyframe " + std::to_string(i + 1);
    if (!f.is_object()) throw Error(where + " is not an object");
    TourKeyframe k;
    k.view = text_field(f, "view", k.view, where);
    if (k.view != "particles" && k.view != "physical" && k.view != "logical")
      throw Error(where + ": unknown view '" + k.view + "' (particles, physical or logical)");
    k.from = text_field(f, "from", "", where);
    k.to = text_field(f, "to", "", where);
    k.steps = text_field(f, "steps", "", where);
    if (!k.steps.empty() && k.view != "logical") throw Error(where + ": \"steps\" is for the logical view");
    k.procs = text_field(f, "procs", "", where);
    k.color = text_field(f, "color", k.color, where);
    k.caption = text_field(f, "caption", "", where);
    if (f.contains("seconds")) {
      if (!f["seconds"].is_number() || !(f["seconds"].get<double>() > 0) || f["seconds"].get<double>() > 3600)
        throw Error(where + ": \"seconds\" must be a number within 0..3600");
      k.seconds = f["seconds"].get<double>();
    }
    tour.keyframes.push_back(std::move(k));
  }
  return tour;
}

DemoTour default_demo_tour(bool has_structure) {
  DemoTour tour;
  tour.keyframes.push_back({"particles", "0%", "100%", "", "", "lateness", 12,
                            "Every MPI call is a particle rising with its age (log scale) over its process; "
                            "the background keeps the history"});
  tour.keyframes.push_back({"physical", "40%", "60%", "", "", "lateness", 6,
                            "The physical timeline: messages in flight travel from sender to receiver"});
  if (has_structure)
    tour.keyframes.push_back({"logical", "0%", "100%", "", "", "lateness", 6,
                              "The logical timeline, colored by lateness: where waiting starts"});
  return tour;
}

AnimatedViewSpec keyframe_spec(const TourKeyframe& k, TimeNs trace_end_ns, std::size_t process_count,
                               double frames_per_s) {
  AnimatedViewSpec spec;
  spec.view = k.view;
  spec.from_ns = k.from.empty() ? 0 : parse_time_option("from", k.from, trace_end_ns);
  spec.to_ns = k.to.empty() ? trace_end_ns : parse_time_option("to", k.to, trace_end_ns);
  if (spec.to_ns <= spec.from_ns) throw Error("keyframe: \"from\" must be before \"to\"");
  if (!k.steps.empty()) {
    auto [a, b] = split_range("steps", k.steps, ":-");
    spec.step0 = parse_index("steps", a);
    spec.step1 = parse_index("steps", b);
    if (spec.step0 < 0 || spec.step1 < spec.step0) throw Error("steps: expected A:B with 0 <= A <= B");
  }
  auto [p0, p1] = parse_index_range("procs", k.procs, static_cast<std::int64_t>(process_count));
  spec.row0 = static_cast<double>(p0);
  spec.row1 = static_cast<double>(p1) + 1;
  spec.color = k.color;
  spec.frames_per_s = frames_per_s;
  spec.step_ns = static_cast<double>(spec.to_ns - spec.from_ns) / std::max(1.0, k.seconds * frames_per_s - 1);
  return spec;
}

}  // namespace weft::app
