#pragma once
// Where `weft record` puts its frames: raw RGBA frames piped into ffmpeg
// (Debian package `ffmpeg`, optional at run time), or, when there is no
// ffmpeg, numbered PNG files in a folder next to the requested video.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace weft::app {

// The ffmpeg to run: $WEFT_FFMPEG when set, else `ffmpeg` found on $PATH;
// "" when there is none.
std::string find_ffmpeg();

class VideoSink {
 public:
  // Starts ffmpeg (`ffmpeg` non-empty) writing `out`, or prepares the PNG
  // folder `out` + ".frames/". Throws weft::Error when ffmpeg cannot start
  // or the folder cannot be made.
  VideoSink(const std::string& ffmpeg, const std::string& out, int width, int height, double fps);
  ~VideoSink();
  VideoSink(const VideoSink&) = delete;
  VideoSink& operator=(const VideoSink&) = delete;

  // Adds one frame of width × height RGBA pixels, top row first. Throws
  // weft::Error when ffmpeg stopped taking frames.
  void write(const std::vector<std::uint8_t>& rgba);
  // Waits for ffmpeg; throws weft::Error naming its exit status when it failed.
  // Returns what was written, for the command's last line.
  std::string finish();

 private:
  std::string out_;
  std::string png_dir_;  // non-empty: PNG frames instead of video
  int width_;
  int height_;
  std::FILE* pipe_ = nullptr;
  int frames_ = 0;
};

}  // namespace weft::app
