#pragma once
// Shared by the corrupted-input corpus (test_corrupt_*.cpp) and the mutation
// fuzz loop (test_fuzz_import.cpp): a deterministic PRNG, byte-level
// mutations of files, and the CLI's failure contract.
//
// The contract for any input, however damaged: the command either succeeds
// (exit 0; `check` may also say 1 = invariants violated) or exits with status
// 2 after printing exactly one line "weft: FILE: problem" to stderr, where
// FILE is one of the files the test handed it. It never dies of a signal
// (crash, sanitizer abort), never outlives the hang guard, never needs more
// than kMaxRssMiB of memory, and never leaves a temporary file behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "subprocess_runner.h"

namespace weft::test {

// Runs `weft synth ARGS -o OUT` and fails the current test when it does not succeed.
inline void synth_trace(const std::vector<std::string>& args, const std::filesystem::path& out) {
  std::vector<std::string> argv = {WEFT_BINARY, "synth"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"-o", out.string()});
  ProcessResult r = run_process(argv);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.describe();
}

namespace fs = std::filesystem;

// Peak RSS allowed for one command on the corpus's tiny inputs. A sanity
// limit that was forgotten shows up as a much larger number (or as
// bad_alloc, which breaks the one-line-naming-a-file rule).
constexpr long kMaxRssMiB = kSanitizedBuild ? 1024 : 512;

// splitmix64: small, fast and the same on every platform, so a failing case
// number reproduces anywhere.
class Prng {
 public:
  explicit Prng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n > 0.
  std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t state_;
};

inline std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Every regular file under `dir`, relative to it, sorted.
inline std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), dir));
  std::sort(files.begin(), files.end());
  return files;
}

// `count` offsets spread over [0, size): evenly, plus the first and last few
// bytes where headers and trailers live.
inline std::vector<std::size_t> spread_offsets(std::size_t size, std::size_t count) {
  std::set<std::size_t> at;
  if (size == 0) return {};
  for (std::size_t i = 0; i < std::min<std::size_t>(size, 8); ++i) {
    at.insert(i);
    at.insert(size - 1 - i);
  }
  for (std::size_t i = 0; i < count; ++i) at.insert(i * size / count);
  return {at.begin(), at.end()};
}

// `weft synth` archives are byte-identical for one seed except for the random
// trace id OTF2 writes into the anchor. Given the anchors of two syntheses of
// the same archive, sets the bytes where they differ to a fixed value in the
// first, so that mutations (which depend on the bytes) reproduce.
inline void pin_trace_id(const fs::path& anchor, const fs::path& same_again) {
  std::string a = read_bytes(anchor), b = read_bytes(same_again);
  if (a.size() != b.size()) return;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) a[i] = 0x5a;
  write_bytes(anchor, a);
}

// One byte-level mutation, as the fuzz loop stacks them.
inline void mutate_once(std::string& bytes, Prng& rng) {
  static const unsigned char kInteresting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe, 0x10, 0x40};
  const std::uint64_t op = rng.below(bytes.empty() ? 1 : 8);
  const std::size_t n = bytes.size();
  switch (op) {
    case 0: {  // insert a few random bytes (also the only way to grow an empty file)
      std::size_t at = n ? rng.below(n + 1) : 0;
      std::string add(1 + rng.below(8), '\0');
      for (char& c : add) c = static_cast<char>(rng.next());
      bytes.insert(at, add);
      break;
    }
    case 1: bytes[rng.below(n)] ^= static_cast<char>(1u << rng.below(8)); break;
    case 2: bytes[rng.below(n)] = static_cast<char>(kInteresting[rng.below(sizeof kInteresting)]); break;
    case 3: bytes.resize(rng.below(n)); break;  // truncate
    case 4: {  // erase a range
      std::size_t at = rng.below(n);
      bytes.erase(at, 1 + rng.below(std::min<std::size_t>(n - at, 32)));
      break;
    }
    case 5: {  // a run of 0xff: huge counts in varints and fixed-width fields
      std::size_t at = rng.below(n);
      std::size_t len = std::min<std::size_t>(n - at, 1 + rng.below(9));
      std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(at), len, '\xff');
      break;
    }
    case 6: {  // duplicate a chunk in place
      std::size_t from = rng.below(n);
      std::size_t len = std::min<std::size_t>(n - from, 1 + rng.below(64));
      bytes.insert(rng.below(n + 1), bytes.substr(from, len));
      break;
    }
    default: bytes[rng.below(n)] = static_cast<char>(rng.next()); break;
  }
}

// How one command on one damaged input ended, judged by the contract above.
// `named` are the paths one of which a failure message must name
// (directories: any file below them).
inline std::string contract_violation(const ProcessResult& r, const std::vector<fs::path>& named,
                                      std::vector<int> ok_codes = {0}) {
  if (r.timed_out) return "hang: killed by the hang guard";
  if (!r.exited) return std::string("crash: killed by signal ") + strsignal(r.signal);
  if (r.max_rss_kb / 1024 > kMaxRssMiB)
    return "memory: peak RSS " + std::to_string(r.max_rss_kb / 1024) + " MiB";
  if (std::find(ok_codes.begin(), ok_codes.end(), r.exit_code) != ok_codes.end()) return "";
  if (r.exit_code != 2) return "exit status " + std::to_string(r.exit_code);
  if (std::count(r.err.begin(), r.err.end(), '\n') != 1 || r.err.back() != '\n')
    return "not exactly one line on stderr";
  if (r.err.rfind("weft: ", 0) != 0) return "stderr line does not start with 'weft: '";
  if (r.err.find(".tmp-") != std::string::npos) return "the message names a temporary file";
  for (const fs::path& p : named)
    if (r.err.find(p.string()) != std::string::npos) return "";
  return "the message names none of the input files";
}

inline bool has_temp_files_below(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) return true;
  return false;
}

// Counts the cases a corpus test ran and collects the ones that broke the
// contract, so one test reports all of its failures (and how many it tried).
class CaseTally {
 public:
  explicit CaseTally(std::string name) : name_(std::move(name)) {}
  ~CaseTally() {
    std::printf("[corpus] %s: %d cases, %zu contract violations\n", name_.c_str(), cases_,
                failures_.size());
    ::testing::Test::RecordProperty("corrupted_cases", cases_);
  }
  void record(const std::string& case_name, const std::string& violation,
              const ProcessResult& r) {
    ++cases_;
    if (std::getenv("WEFT_CORPUS_VERBOSE"))
      std::printf("[case] %s / %s: exit %d %s", name_.c_str(), case_name.c_str(), r.exit_code,
                  r.err.empty() ? "\n" : r.err.c_str());
    if (violation.empty()) return;
    failures_.push_back(case_name);
    ADD_FAILURE() << name_ << " / " << case_name << ": " << violation << "\n  " << r.describe();
  }
  int cases() const { return cases_; }
  // Sanitizer builds run every second case of the systematic corpora (an
  // ASan+UBSan child costs several times a plain one; CI runs both suites).
  bool sample() { return !kSanitizedBuild || (offered_++ % 2 == 0); }

 private:
  std::string name_;
  int cases_ = 0;
  int offered_ = 0;
  std::vector<std::string> failures_;
};

}  // namespace weft::test
