#include "structure/input_ops.h"

#include <string>

#include "common/error.h"

namespace weft::structure {

InputOps::InputOps(const CommTrace& input, const std::vector<OpIndex>& analyzed_of) {
  const auto n = static_cast<std::size_t>(input.op_count());
  starts_ = RankBits(n);
  process_starts_ = RankBits(n);
  // An op is a member of a coalesced run when it shares its analyzed op with
  // a neighbour; for_each walks the same rule.
  auto grouped = [&](std::size_t i) {
    return (i > 0 && analyzed_of[i - 1] == analyzed_of[i]) || (i + 1 < n && analyzed_of[i + 1] == analyzed_of[i]);
  };
  std::size_t members = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || analyzed_of[i] != analyzed_of[i - 1]) starts_.set(i);
    if (grouped(i)) ++members;
  }
  starts_.count_members();
  for (ProcessIndex p = 0; p < input.process_count; ++p)
    if (input.first_op(p) < input.end_op(p)) process_starts_.set(static_cast<std::size_t>(input.first_op(p)));

  member_start_.reserve(members);
  member_end_.reserve(members);
  for (std::size_t i = 0; i < n; ++i) {
    if (!grouped(i)) continue;
    member_start_.push_back(input.start[i]);
    member_end_.push_back(input.end[i]);
  }

  if (!input.event_id.empty()) {
    event_base_.assign(static_cast<std::size_t>(input.process_count), 0);
    event_offset_.resize(n);
    for (ProcessIndex p = 0; p < input.process_count; ++p) {
      const auto first = static_cast<std::size_t>(input.first_op(p));
      const auto end = static_cast<std::size_t>(input.end_op(p));
      if (first == end) continue;
      const EventId base = input.event_id[first];
      event_base_[static_cast<std::size_t>(p)] = base;
      for (std::size_t i = first; i < end; ++i) {
        const EventId offset = input.event_id[i] - base;
        if (offset < 0 || offset > EventId{UINT32_MAX})
          throw Error("process " + std::to_string(p) + ": event ids not increasing or spanning 2^32 or more");
        event_offset_[i] = static_cast<std::uint32_t>(offset);
      }
    }
  }
  msg_send_op_ = input.msg_send_op;
}

}  // namespace weft::structure
