#pragma once
// Helpers of the Projections tests: synthesize a run with `weft synth
// --format projections`, import it, and read the Charm++ tables back.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "corruption_support.h"
#include "import_test_support.h"
#include "store/schema.h"
#include "store/sqlite.h"

namespace weft::test {

// `weft synth PATTERN --format projections ARGS -o DIR`; returns DIR/PATTERN.sts.
inline fs::path synth_projections(const fs::path& dir, const std::string& pattern,
                                  const std::vector<std::string>& args) {
  std::vector<std::string> all = {pattern, "--format", "projections"};
  all.insert(all.end(), args.begin(), args.end());
  synth_trace(all, dir);
  return dir / (pattern + ".sts");
}

// `weft import STS -o OUT --quiet`; fails the test unless it exits 0.
inline void import_run(const fs::path& sts, const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {WEFT_BINARY, "import", "--quiet", sts.string(), "-o", out.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  ProcessResult r = run_process(argv);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
}

inline std::int64_t meta_int(db::Database& db, const std::string& key) {
  db::Statement s = db.prepare("SELECT value FROM meta WHERE key = ?1");
  s.bind(1, std::string_view(key));
  EXPECT_TRUE(s.step()) << "meta key " << key << " missing";
  return std::stoll(std::string(s.column_text(0)));
}

inline std::int64_t count_where(db::Database& db, const std::string& sql, const std::string& arg) {
  db::Statement s = db.prepare(sql);
  s.bind(1, std::string_view(arg));
  s.step();
  return s.column_int(0);
}

// Gunzips every PE log of DIR into a plain PROG.N.log beside it and removes
// the .gz (the importer reads either; plain text lets byte mutations reach
// the record parser instead of zlib's CRC check).
inline void gunzip_logs(const fs::path& dir) {
  for (const fs::path& p : files_under(dir)) {
    fs::path full = dir / p;
    if (full.extension() != ".gz") continue;
    gzFile f = gzopen(full.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    std::string text;
    char buf[65536];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
    gzclose(f);
    fs::path plain = full;
    plain.replace_extension();
    write_bytes(plain, text);
    fs::remove(full);
  }
}

}  // namespace weft::test
