#include "projections/virtual_ranks.h"

#include <algorithm>
#include <tuple>

namespace weft::db {

VirtualRankHistory virtual_rank_history(std::vector<AmpiBracket>& brackets) {
  std::sort(brackets.begin(), brackets.end(), [](const AmpiBracket& a, const AmpiBracket& b) {
    return std::tie(a.vp, a.start_ns, a.end_ns) < std::tie(b.vp, b.start_ns, b.end_ns);
  });
  VirtualRankHistory h;
  std::size_t i = 0;
  while (i < brackets.size()) {
    const std::int32_t vp = brackets[i].vp;
    ++h.vps;
    VirtualRankSpan span{vp, brackets[i].pe, brackets[i].start_ns, brackets[i].end_ns};
    TimeNs last_migrate = -1;
    for (; i < brackets.size() && brackets[i].vp == vp; ++i) {
      const AmpiBracket& b = brackets[i];
      if (b.pe != span.pe) {
        TimeNs leave = last_migrate >= 0 ? last_migrate : span.end_ns;
        span.end_ns = leave;
        h.spans.push_back(span);
        h.migrations.push_back({vp, span.pe, b.pe, leave});
        span = {vp, b.pe, leave, b.end_ns};
        last_migrate = -1;
      }
      span.end_ns = std::max(span.end_ns, b.end_ns);
      if (b.migrate) last_migrate = b.end_ns;
    }
    h.spans.push_back(span);
  }
  return h;
}

}  // namespace weft::db
