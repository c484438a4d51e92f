#include "structure/input_ops.h"

#include <future>
#include <string>
#include <utility>

#include "common/error.h"

namespace weft::structure {

InputOps::InputOps(const CommTrace& input, RankBits starts, int threads) : starts_(std::move(starts)) {
  const auto n = static_cast<std::size_t>(input.op_count());
  if (starts_.size() != n || (n > 0 && !starts_.test(0)))
    throw Error("input op starts: " + std::to_string(starts_.size()) + " ops for " + std::to_string(n) +
                ", or the first op starts none");
  // The two parts write separate members, and each first-touches tens of MB
  // at 16,384 processes: with two threads they are made side by side.
  std::future<void> ids = std::async(threads > 1 ? std::launch::async : std::launch::deferred,
                                     [&] { keep_event_ids_and_senders(input); });
  keep_run_members(input);
  ids.get();
}

void InputOps::keep_run_members(const CommTrace& input) {
  const auto n = static_cast<std::size_t>(input.op_count());
  // An op is a member of a coalesced run when it shares its analyzed op with
  // a neighbour; for_each walks the same rule.
  auto grouped = [&](std::size_t i) { return !starts_.test(i) || (i + 1 < n && !starts_.test(i + 1)); };
  // The ops are grouped by process (CSR): a process's walk starts at its first op.
  process_first_op_ = input.process_first_op;
  process_first_member_.assign(process_first_op_.size(), 0);
  std::size_t members = 0, p = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (; p < process_first_op_.size() && static_cast<std::size_t>(process_first_op_[p]) <= i; ++p)
      process_first_member_[p] = static_cast<std::int32_t>(members);
    if (grouped(i)) ++members;
  }
  for (; p < process_first_op_.size(); ++p) process_first_member_[p] = static_cast<std::int32_t>(members);
  member_start_.reserve(members);
  member_end_.reserve(members);
  for (std::size_t i = 0; i < n; ++i) {
    if (!grouped(i)) continue;
    member_start_.push_back(input.start[i]);
    member_end_.push_back(input.end[i]);
  }
}

void InputOps::keep_event_ids_and_senders(const CommTrace& input) {
  const auto n = static_cast<std::size_t>(input.op_count());
  process_starts_ = RankBits(n);
  for (ProcessIndex p = 0; p < input.process_count; ++p)
    if (input.first_op(p) < input.end_op(p)) process_starts_.set(static_cast<std::size_t>(input.first_op(p)));
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
