#include "app/view_filter.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "common/error.h"

namespace weft::app {

namespace {

// Search matches are case-insensitive substrings of the region name.
bool contains_folded(const std::string& haystack, const std::string& needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                        [](char a, char b) {
                          return std::tolower(static_cast<unsigned char>(a)) ==
                                 std::tolower(static_cast<unsigned char>(b));
                        });
  return it != haystack.end();
}

render::Rgba8 dimmed(render::Rgba8 c) {
  auto mix = [c](int shift, int background) {
    double v = static_cast<double>((c >> shift) & 0xff);
    return static_cast<std::uint8_t>(background + (v - background) * 0.25);
  };
  return render::rgba8(mix(0, 22), mix(8, 22), mix(16, 26));
}

}  // namespace

std::vector<ProcessIndex> parse_process_ranges(const std::string& text, std::size_t process_count,
                                               const std::string& what) {
  std::vector<ProcessIndex> out;
  const auto count = static_cast<long long>(process_count);
  if (text.find_first_not_of(" \t") == std::string::npos) {
    out.resize(process_count);
    for (std::size_t p = 0; p < process_count; ++p) out[p] = static_cast<ProcessIndex>(p);
    return out;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    long long first = 0, last = 0, stride = 1;
    int used = 0;
    if (std::sscanf(item.c_str(), "%lld-%lld:%lld%n", &first, &last, &stride, &used) == 3 &&
        static_cast<std::size_t>(used) == item.size()) {
    } else if (std::sscanf(item.c_str(), "%lld-%lld%n", &first, &last, &used) == 2 &&
               static_cast<std::size_t>(used) == item.size()) {
      stride = 1;
    } else if (std::sscanf(item.c_str(), "%lld%n", &first, &used) == 1 &&
               static_cast<std::size_t>(used) == item.size()) {
      last = first;
    } else {
      throw Error(what + ": '" + item + "' is not A, A-B or A-B:STRIDE");
    }
    if (first < 0 || last < first || stride < 1)
      throw Error(what + ": '" + item + "' needs 0 <= A <= B and a stride of at least 1");
    if (first >= count)
      throw Error(what + ": '" + item + "' starts past the last row (" + std::to_string(count - 1) + ")");
    for (long long p = first; p <= std::min(last, count - 1); p += stride)
      out.push_back(static_cast<ProcessIndex>(p));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::shared_ptr<const ViewFilter> make_view_filter(const TraceInfo& info, const std::string& process_text,
                                                   std::vector<char> region_hidden,
                                                   const std::string& search) {
  auto f = std::make_shared<ViewFilter>();
  f->process_text = process_text;
  const std::string what = info.task_rows ? "chares" : "processes";
  f->process_of_row = parse_process_ranges(process_text, info.processes.size(), what);
  if (f->process_of_row.empty()) throw Error(what + ": '" + process_text + "' names no row");
  f->all_processes = f->process_of_row.size() == info.processes.size();
  f->row_of_process.assign(info.processes.size(), -1);
  for (std::size_t r = 0; r < f->process_of_row.size(); ++r)
    f->row_of_process[static_cast<std::size_t>(f->process_of_row[r])] = static_cast<std::int32_t>(r);
  region_hidden.resize(info.regions.size(), 0);
  f->region_hidden = std::move(region_hidden);
  f->search = search;
  f->region_colors = info.region_colors;
  if (!search.empty())
    for (std::size_t r = 0; r < info.regions.size(); ++r)
      if (!contains_folded(info.regions.name[r], search)) f->region_colors[r] = dimmed(f->region_colors[r]);
  return f;
}

db::Window process_window(const ViewFilter& filter, db::Window rows) {
  if (filter.process_of_row.empty()) return rows;
  auto clamp_row = [&](ProcessIndex r) {
    return static_cast<std::size_t>(std::clamp<ProcessIndex>(r, 0, static_cast<ProcessIndex>(filter.rows()) - 1));
  };
  rows.p0 = filter.process_of_row[clamp_row(rows.p0)];
  rows.p1 = filter.process_of_row[clamp_row(rows.p1)];
  return rows;
}

}  // namespace weft::app
