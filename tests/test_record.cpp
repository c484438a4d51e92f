// `weft record` end to end on a small stencil2d run: the requested number of
// frames of the requested size, consecutive frames that differ while events
// are in flight, ffmpeg fed raw RGBA frames through its pipe (a stand-in
// ffmpeg that keeps what it is given, and the real one with ffprobe when
// installed), and a clear message when ffmpeg fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "import_test_support.h"
#include "png_test_support.h"

using weft::test::quoted;
using weft::test::run_command;
namespace fs = std::filesystem;

namespace {

const std::string kWeft = WEFT_BINARY;

class Record : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::path trace = dir_.path / "trace";
    run_ = dir_.path / "run.weft";
    auto s = run_command(kWeft + " synth stencil2d -n 16 -i 4 -o " + quoted(trace));
    ASSERT_EQ(s.exit_code, 0) << s.output;
    auto i = run_command(kWeft + " import -q " + quoted(trace / "traces.otf2") + " -o " + quoted(run_));
    ASSERT_EQ(i.exit_code, 0) << i.output;
  }

  // A shell script standing in for ffmpeg.
  std::string fake_ffmpeg(const std::string& body) {
    fs::path script = dir_.path / "ffmpeg";
    std::ofstream(script) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(script, fs::perms::owner_all);
    return script.string();
  }

  bool no_egl(const weft::test::CommandResult& r) {
    return r.exit_code != 0 && r.output.find("cannot create EGL context") != std::string::npos;
  }

  weft::test::TempDir dir_{"record"};
  fs::path run_;
};

}  // namespace

TEST_F(Record, WithoutFfmpegWritesNumberedPngsAndSaysSo) {
  const fs::path out = dir_.path / "clip.mp4";
  for (const char* view : {"particles", "physical"}) {
    auto r = run_command("WEFT_FFMPEG= PATH=/nonexistent " + kWeft + " record " + quoted(run_) + " --view " + view +
                         " --from 20% --to 80% --seconds 0.5 --fps 16 --size 320x200 --out " + quoted(out));
    if (no_egl(r)) GTEST_SKIP() << "no headless OpenGL";
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("ffmpeg not found"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("wrote 8 PNG frames"), std::string::npos) << r.output;
    const fs::path frames = dir_.path / "clip.mp4.frames";
    int count = 0;
    for (const auto& entry : fs::directory_iterator(frames)) {
      weft::testing::Png png(entry.path().string());
      ASSERT_TRUE(png.ok());
      EXPECT_EQ(png.width(), 320);
      EXPECT_EQ(png.height(), 200);
      ++count;
    }
    EXPECT_EQ(count, 8) << view;
    // The run communicates throughout 20%..80%: every frame shows a new moment.
    for (int k = 1; k < 8; ++k) {
      char a[32], b[32];
      std::snprintf(a, sizeof a, "frame_%05d.png", k);
      std::snprintf(b, sizeof b, "frame_%05d.png", k + 1);
      weft::testing::Png pa((frames / a).string()), pb((frames / b).string());
      long differing = 0;
      for (int y = 0; y < 200; ++y)
        for (int x = 0; x < 320; ++x) differing += pa.pixel(x, y) != pb.pixel(x, y);
      EXPECT_GT(differing, 0) << view << " frames " << k << " and " << k + 1;
    }
  }
}

TEST_F(Record, PipesRawRgbaFramesToFfmpeg) {
  const fs::path raw = dir_.path / "frames.raw";
  const std::string ffmpeg = fake_ffmpeg("cat > " + quoted(raw));
  auto r = run_command("WEFT_FFMPEG=" + quoted(fs::path(ffmpeg)) + " " + kWeft + " record " + quoted(run_) +
                       " --view particles --seconds 1 --fps 12 --size 160x90 --out " +
                       quoted(dir_.path / "clip.mp4"));
  if (no_egl(r)) GTEST_SKIP() << "no headless OpenGL";
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("12 frames"), std::string::npos) << r.output;
  EXPECT_EQ(fs::file_size(raw), 12u * 160u * 90u * 4u);
}

TEST_F(Record, FailingFfmpegIsAClearError) {
  const std::string ffmpeg = fake_ffmpeg("exec 0<&-; exit 3");
  auto r = run_command("WEFT_FFMPEG=" + quoted(fs::path(ffmpeg)) + " " + kWeft + " record " + quoted(run_) +
                       " --view particles --seconds 1 --fps 30 --size 320x200 --out " +
                       quoted(dir_.path / "clip.mp4"));
  if (no_egl(r)) GTEST_SKIP() << "no headless OpenGL";
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("ffmpeg"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("exit status 3"), std::string::npos) << r.output;
}

TEST_F(Record, RealFfmpegClipHasTheFrameCountAndSize) {
  if (run_command("command -v ffmpeg && command -v ffprobe").exit_code != 0)
    GTEST_SKIP() << "ffmpeg/ffprobe not installed (the Debian package ffmpeg)";
  const fs::path out = dir_.path / "clip.mp4";
  auto r = run_command(kWeft + " record " + quoted(run_) + " --view particles --seconds 1 --fps 30 --size 320x180 --out " +
                       quoted(out));
  if (no_egl(r)) GTEST_SKIP() << "no headless OpenGL";
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto probe = run_command("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                           "stream=width,height,nb_read_frames -of csv=p=0 " + quoted(out));
  ASSERT_EQ(probe.exit_code, 0) << probe.output;
  EXPECT_NE(probe.output.find("320,180,30"), std::string::npos) << probe.output;
}

TEST_F(Record, BadSpanIsRefused) {
  auto r = run_command(kWeft + " record " + quoted(run_) + " --from 80% --to 20% --out x.mp4");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--from must be before --to"), std::string::npos) << r.output;
  auto v = run_command(kWeft + " record " + quoted(run_) + " --view nope --out x.mp4");
  EXPECT_EQ(v.exit_code, 2) << v.output;
}
