#include "structure/input_ops.h"

#include <algorithm>
#include <string>
#include <utility>

#include "common/error.h"
#include "common/two_parts.h"

namespace weft::structure {
namespace {

// Whether to - from is in [0, kMemberAside) (computed without overflow,
// whatever a damaged trace's times).
bool fits_in_u32(TimeNs from, TimeNs to) {
  return to >= from && static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from) < UINT32_MAX;
}

}  // namespace

InputOps::InputOps(CommTrace& input, RankBits starts, int threads) : starts_(std::move(starts)) {
  std::vector<StoredEventId> event_id = std::move(input.event_id);  // dropped once kept as differences
  input.event_id.clear();  // moved from: empty, as documented
  const auto n = static_cast<std::size_t>(input.op_count());
  if (starts_.size() != n || (n > 0 && !starts_.test(0)))
    throw Error("input op starts: " + std::to_string(starts_.size()) + " ops for " + std::to_string(n) +
                ", or the first op starts none");
  if (!event_id.empty() && event_id.size() != n)
    throw Error("input ops: " + std::to_string(event_id.size()) + " event ids for " + std::to_string(n) + " ops");
  keep_run_members_and_senders(input, threads);
  keep_event_ids(input, event_id, threads);
}

// Each op's event id as the difference from the op before's, in the width
// that takes the fewest bytes with the differences that do not fit kept aside
// (16 bytes each): the differences are the events between two communication
// events, a few in a stencil, hundreds where many functions are traced
// between MPI calls, and one per process start is the other processes'
// events. Two passes, each in two parts over the processes: the differences
// too large for 1 and 2 bytes counted, then stored.
void InputOps::keep_event_ids(const CommTrace& input, const std::vector<StoredEventId>& event_id, int threads) {
  has_event_ids_ = !event_id.empty();
  if (!has_event_ids_) return;
  const std::size_t n = event_id.size();
  auto step = [&](std::size_t i) { return std::int64_t{event_id[i]} - (i > 0 ? event_id[i - 1] : 0); };
  const ProcessIndex processes = input.process_count;
  const ProcessIndex split = two_part_split(processes, threads);
  std::size_t over_one[2] = {0, 0}, over_two[2] = {0, 0};  // per part: past 1 byte, past 2
  // The ops of processes [first, end).
  auto ops_of = [&](ProcessIndex first, ProcessIndex end) {
    return std::pair{static_cast<std::size_t>(input.first_op(first)), static_cast<std::size_t>(input.first_op(end))};
  };
  run_in_two_parts(split, processes, [&](int part, ProcessIndex first, ProcessIndex end) {
    const auto [begin, stop] = ops_of(first, end);
    for (std::size_t i = begin; i < stop; ++i) {
      const std::int64_t d = step(i);
      over_one[part] += d < 0 || d >= 0xFF ? 1 : 0;
      over_two[part] += d < 0 || d >= 0xFFFF ? 1 : 0;
    }
  });
  constexpr std::size_t kAsideBytes = sizeof(NarrowColumn::Misfit);
  const std::size_t bytes_one = n + kAsideBytes * (over_one[0] + over_one[1]);
  const std::size_t bytes_two = 2 * n + kAsideBytes * (over_two[0] + over_two[1]);
  const std::size_t width = bytes_one <= bytes_two ? (bytes_one <= 4 * n ? 1 : 4) : (bytes_two <= 4 * n ? 2 : 4);
  event_step_.resize(n, width);
  std::vector<NarrowColumn::Misfit> misfits[2];
  run_in_two_parts(split, processes, [&](int part, ProcessIndex first, ProcessIndex end) {
    const auto [begin, stop] = ops_of(first, end);
    for (std::size_t i = begin; i < stop; ++i)
      if (const std::int64_t d = step(i); !event_step_.set(i, d))
        misfits[part].push_back({i, static_cast<std::int32_t>(d)});
  });
  misfits[0].insert(misfits[0].end(), misfits[1].begin(), misfits[1].end());
  event_step_.keep_aside(std::move(misfits[0]));
  process_event_before_.resize(static_cast<std::size_t>(processes));
  for (ProcessIndex p = 0; p < processes; ++p) {
    const auto first = static_cast<std::size_t>(input.first_op(p));
    process_event_before_[static_cast<std::size_t>(p)] = first > 0 ? event_id[first - 1] : 0;
  }
}

// In two parts, each over half of the processes (and half of the messages):
// first the members of each process are counted, then each part copies its
// processes' members and its messages' senders into arrays left
// uninitialized, so that the two threads first-touch them side by side (one
// thread took 0.47 s for 16,384 processes x 200 iterations).
void InputOps::keep_run_members_and_senders(const CommTrace& input, int threads) {
  const auto n = static_cast<std::size_t>(input.op_count());
  // An op is a member of a coalesced run when it shares its analyzed op with
  // a neighbour; for_each walks the same rule. A run never spans two
  // processes (isend_run_starts), so each process's members are its own.
  auto grouped = [&](std::size_t i) { return !starts_.test(i) || (i + 1 < n && !starts_.test(i + 1)); };
  // The ops are grouped by process (CSR): a process's walk starts at its first op.
  process_first_op_ = input.process_first_op;
  const ProcessIndex processes = input.process_count;
  const ProcessIndex split = two_part_split(processes, threads);
  process_first_member_.assign(static_cast<std::size_t>(processes) + 1, 0);
  run_in_two_parts(split, processes, [&](int, ProcessIndex first, ProcessIndex end) {
    for (ProcessIndex p = first; p < end; ++p) {
      std::int32_t members = 0;
      for (auto i = static_cast<std::size_t>(input.first_op(p)); i < static_cast<std::size_t>(input.end_op(p)); ++i)
        members += grouped(i) ? 1 : 0;
      process_first_member_[static_cast<std::size_t>(p) + 1] = members;
    }
  });
  for (std::size_t p = 0; p < static_cast<std::size_t>(processes); ++p)
    process_first_member_[p + 1] += process_first_member_[p];
  const auto members = static_cast<std::size_t>(process_first_member_.back());
  member_offset_.resize(members);
  member_duration_.resize(members);
  const std::size_t messages = input.msg_send_op.size();
  msg_send_op_.resize(messages);
  std::vector<MemberTimes> aside[2];  // each part's, in member order
  TimeNs max_duration[2] = {0, 0};
  run_in_two_parts(split, processes, [&](int part, ProcessIndex first, ProcessIndex end) {
    auto m = static_cast<std::size_t>(process_first_member_[static_cast<std::size_t>(first)]);
    TimeNs run_start = 0;  // of the run the op belongs to: a process's first op starts one
    TimeNs longest = 0;
    for (auto i = static_cast<std::size_t>(input.first_op(first)); i < static_cast<std::size_t>(input.first_op(end)); ++i) {
      const TimeNs start = input.start[i], end_ns = input.end[i];
      longest = std::max(longest, end_ns - start);
      if (starts_.test(i)) run_start = start;
      if (!grouped(i)) continue;
      if (fits_in_u32(run_start, start) && fits_in_u32(start, end_ns)) {
        member_offset_[m] = static_cast<std::uint32_t>(start - run_start);
        member_duration_[m] = static_cast<std::uint32_t>(end_ns - start);
      } else {
        member_offset_[m] = kMemberAside;
        member_duration_[m] = 0;
        aside[part].push_back({m, start, end_ns});
      }
      ++m;
    }
    max_duration[part] = longest;
    const std::size_t half = split < processes ? messages / 2 : messages;
    const std::size_t from = part == 0 ? 0 : half, to = part == 0 ? half : messages;
    std::copy(input.msg_send_op.begin() + static_cast<std::ptrdiff_t>(from),
              input.msg_send_op.begin() + static_cast<std::ptrdiff_t>(to),
              msg_send_op_.begin() + static_cast<std::ptrdiff_t>(from));
  });
  // The second part's processes follow the first's: its members too.
  member_aside_ = std::move(aside[0]);
  member_aside_.insert(member_aside_.end(), aside[1].begin(), aside[1].end());
  max_duration_ = std::max(max_duration[0], max_duration[1]);
}

const InputOps::MemberTimes& InputOps::member_aside(std::size_t member) const {
  const auto it = std::lower_bound(member_aside_.begin(), member_aside_.end(), member,
                                   [](const MemberTimes& kept, std::size_t m) { return kept.member < m; });
  if (it == member_aside_.end() || it->member != member)
    throw Error("input ops: member " + std::to_string(member) + " has no times");  // cannot happen: set together
  return *it;
}

}  // namespace weft::structure
