// Outputs that survive a power cut: AtomicOutput::commit syncs the finished
// temporary file before renaming it over the output (and the directory
// after), so a crash just after a commit finds the whole new output, never a
// renamed file whose data were not written yet. The text exporters write
// through open_with_early_writeback (db/store/background_sync.h), synced in
// the background every 8 MiB so that the commit's sync is short; it must
// keep every byte and report a full disk as stdio does.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "import_test_support.h"
#include "store/atomic_output.h"
#include "store/background_sync.h"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// 20 MiB of numbered lines: two background syncs' worth.
std::string numbered_lines() {
  std::string text;
  for (int i = 0; text.size() < (std::size_t{20} << 20); ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

}  // namespace

TEST(AtomicOutput, CommitSyncsTheFileThenTheDirectory) {
  weft::test::TempDir dir("durable");
  const fs::path out = dir.path / "out.txt";
  {
    std::ofstream previous(out);
    previous << "previous\n";
  }
  weft::db::AtomicOutput output(out.string(), true);
  {
    std::ofstream temp(output.temp_path());
    temp << "new\n";
  }
  EXPECT_EQ(read_file(out), "previous\n") << "the output changed before the commit";
  const std::int64_t syncs = weft::db::atomic_output_disk_syncs();
  output.commit();
  EXPECT_EQ(weft::db::atomic_output_disk_syncs() - syncs, 2) << "the file and its directory";
  EXPECT_EQ(read_file(out), "new\n");
  EXPECT_FALSE(fs::exists(output.temp_path()));
}

TEST(EarlyWriteback, StreamIsSyncedInTheBackgroundAndKeepsEveryByte) {
  weft::test::TempDir dir("durable");
  const fs::path out = dir.path / "lines.txt";
  const std::string text = numbered_lines();
  const std::int64_t syncs = weft::db::background_syncs();
  std::FILE* f = weft::db::open_with_early_writeback(out.string());
  ASSERT_NE(f, nullptr) << std::strerror(errno);
  // In pieces of a few lines, as the exporters write.
  for (std::size_t at = 0; at < text.size(); at += 4000)
    ASSERT_EQ(std::fwrite(text.data() + at, 1, std::min<std::size_t>(4000, text.size() - at), f),
              std::min<std::size_t>(4000, text.size() - at));
  ASSERT_EQ(std::fclose(f), 0);  // waits for the sync under way
  EXPECT_GE(weft::db::background_syncs() - syncs, 1);
  EXPECT_EQ(read_file(out), text);
}

TEST(EarlyWriteback, StreamReplacesWhatTheFileHeld) {
  weft::test::TempDir dir("durable");
  const fs::path out = dir.path / "short.txt";
  {
    std::ofstream longer(out);
    longer << "a longer text than the new one\n";
  }
  std::FILE* f = weft::db::open_with_early_writeback(out.string());
  ASSERT_NE(f, nullptr);
  std::fputs("new\n", f);
  ASSERT_EQ(std::fclose(f), 0);
  EXPECT_EQ(read_file(out), "new\n");
}

TEST(EarlyWriteback, StreamReportsAFullDisk) {
  std::FILE* f = weft::db::open_with_early_writeback("/dev/full");
  if (!f) GTEST_SKIP() << "no /dev/full here";
  // Line by line, as the exporters write: the last flush fails as well.
  for (int i = 0; i < 100000; ++i) std::fputs("a line of text\n", f);
  errno = 0;
  const bool failed = std::fflush(f) != 0 || std::ferror(f);
  EXPECT_TRUE(failed);
  EXPECT_EQ(errno, ENOSPC);
  std::fclose(f);
}

TEST(EarlyWriteback, CannotOpenIsNullWithErrno) {
  errno = 0;
  EXPECT_EQ(weft::db::open_with_early_writeback("/nonexistent-dir/x.csv"), nullptr);
  EXPECT_EQ(errno, ENOENT);
}
