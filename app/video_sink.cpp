#include "app/video_sink.h"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>

#include "common/error.h"
#include "png_writer.h"

namespace weft::app {

namespace {

std::string shell_quoted(const std::string& text) {
  std::string q = "'";
  for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string find_ffmpeg() {
  if (const char* forced = std::getenv("WEFT_FFMPEG"); forced && *forced) return forced;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t at = 0;
  while (at <= dirs.size()) {
    std::size_t colon = dirs.find(':', at);
    if (colon == std::string::npos) colon = dirs.size();
    std::string candidate = dirs.substr(at, colon - at);
    candidate.append(candidate.empty() ? "ffmpeg" : "/ffmpeg");
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    at = colon + 1;
  }
  return "";
}

VideoSink::VideoSink(const std::string& ffmpeg, const std::string& out, int width, int height, double fps)
    : out_(out), width_(width), height_(height) {
  if (ffmpeg.empty()) {
    png_dir_ = out + ".frames";
    std::error_code ec;
    std::filesystem::remove_all(png_dir_, ec);
    if (!std::filesystem::create_directories(png_dir_, ec) || ec)
      throw Error(png_dir_ + ": cannot create the folder for the PNG frames");
    return;
  }
  // A dead ffmpeg must make fwrite fail, not kill weft with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.6g", fps);
  const std::string command = shell_quoted(ffmpeg) + " -hide_banner -loglevel error -y -f rawvideo -pix_fmt rgba -s " +
                              std::to_string(width) + "x" + std::to_string(height) + " -r " + rate +
                              " -i - -pix_fmt yuv420p " + shell_quoted(out);
  pipe_ = ::popen(command.c_str(), "w");
  if (!pipe_) throw Error(out + ": cannot start ffmpeg (" + ffmpeg + ")");
}

VideoSink::~VideoSink() {
  if (pipe_) ::pclose(pipe_);
}

void VideoSink::write(const std::vector<std::uint8_t>& rgba) {
  ++frames_;
  if (!png_dir_.empty()) {
    char name[32];
    std::snprintf(name, sizeof name, "/frame_%05d.png", frames_);
    render::write_png(png_dir_ + name, width_, height_, rgba);
    return;
  }
  if (std::fwrite(rgba.data(), 1, rgba.size(), pipe_) != rgba.size()) {
    const int status = ::pclose(pipe_);
    pipe_ = nullptr;
    throw Error(out_ + ": ffmpeg stopped taking frames at frame " + std::to_string(frames_) + " (exit status " +
                std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  }
}

std::string VideoSink::finish() {
  if (!png_dir_.empty())
    return "ffmpeg not found (install the Debian package ffmpeg for video): wrote " + std::to_string(frames_) +
           " PNG frames to " + png_dir_ + "/";
  const int status = ::pclose(pipe_);
  pipe_ = nullptr;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error(out_ + ": ffmpeg failed (exit status " +
                std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  return out_ + ": " + std::to_string(frames_) + " frames";
}

}  // namespace weft::app
