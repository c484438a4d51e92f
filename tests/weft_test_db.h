#pragma once
// Builds small .weft files through the store's writers (db/store/block_writer.h),
// so that readers and renderers can be tested without the OTF2 importer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/types.h"
#include "store/block_writer.h"
#include "store/event_buckets.h"
#include "store/schema.h"
#include "store/sqlite.h"

namespace weft::testing {

struct TestRegion {
  std::int64_t id;
  std::string name;
  std::string paradigm;
  RegionKind kind;
};

struct TestEvent {
  ProcessIndex process;
  TimeNs start;
  TimeNs end;
  std::int64_t region;
  int depth;
};

struct TestMessage {
  ProcessIndex src;
  ProcessIndex dst;
  TimeNs send;
  TimeNs recv;
  // The events of the send and receive calls (ids as written: events by
  // process, then start, then depth); kNullRef (-1): none.
  EventId send_event = -1;
  EventId recv_event = -1;
};

struct TestTrace {
  int processes = 1;
  std::vector<TestRegion> regions = {
      {0, "main", "user", RegionKind::Compute},
      {1, "compute", "user", RegionKind::Compute},
      {2, "MPI_Isend", "mpi", RegionKind::Isend},
      {3, "MPI_Irecv", "mpi", RegionKind::Irecv},
      {4, "MPI_Waitall", "mpi", RegionKind::Wait},
      {5, "MPI_Allreduce", "mpi", RegionKind::Collective},
  };
  std::vector<TestEvent> events;
  std::vector<TestMessage> messages;
  // meta.bucket_shift; -1: choose_bucket_shift's fine rule (many levels).
  int bucket_shift = -1;
};

// A fresh path in the test temp directory.
inline std::string temp_weft_path(const std::string& stem) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = stem + "_" + (info ? std::string(info->name()) : "x") + ".weft";
  std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove(path);
  return path.string();
}

// Writes `trace` through the store's own schema and block writers: ids
// process by process in start order, buckets by the event_buckets rule with
// the fine shift of choose_bucket_shift (about 2^16 level-0 buckets, so that
// small traces use several bucket levels), meta facts the readers need.
inline void write_test_weft(const std::string& path, TestTrace trace) {
  db::Database db(path, db::Database::Mode::Create);
  db::Transaction tx(db);
  db::create_tables(db);

  std::sort(trace.events.begin(), trace.events.end(), [](const TestEvent& a, const TestEvent& b) {
    if (a.process != b.process) return a.process < b.process;
    if (a.start != b.start) return a.start < b.start;
    return a.depth < b.depth;
  });
  TimeNs end = 1;
  for (const TestEvent& e : trace.events) end = std::max(end, e.end);
  for (const TestMessage& m : trace.messages) end = std::max(end, m.recv);
  const int shift = trace.bucket_shift >= 0 ? trace.bucket_shift : db::choose_bucket_shift(end);

  db::Statement region = db.prepare("INSERT INTO regions VALUES(?1, ?2, ?3, 'function', ?4)");
  for (const TestRegion& r : trace.regions) {
    region.bind(1, r.id);
    region.bind(2, r.name);
    region.bind(3, r.paradigm);
    region.bind(4, static_cast<std::int64_t>(r.kind));
    region.run();
  }
  db::EventBlockWriter events(db, shift);
  db::Statement process = db.prepare(
      "INSERT INTO processes VALUES(?1, ?2, 'cpu', ?1, ?1, ?2, ?3, ?4, 0)");
  std::vector<db::EventRecord> rows;
  std::size_t next = 0;
  for (int p = 0; p < trace.processes; ++p) {
    std::size_t first = next;
    rows.clear();
    while (next < trace.events.size() && trace.events[next].process == p) {
      const TestEvent& e = trace.events[next];
      rows.push_back({static_cast<EventId>(next), p, e.start, e.end, e.region, e.depth});
      ++next;
    }
    events.write(p, rows);
    process.bind(1, static_cast<std::int64_t>(p));
    process.bind(2, "Rank " + std::to_string(p));
    process.bind(3, static_cast<std::int64_t>(first));
    process.bind(4, static_cast<std::int64_t>(next - first));
    process.run();
  }
  std::vector<db::MessageRecord> messages;
  for (std::size_t i = 0; i < trace.messages.size(); ++i) {
    const TestMessage& m = trace.messages[i];
    messages.push_back({static_cast<std::int64_t>(i), m.src, m.dst, 0, 0, 8, m.send_event,
                        db::kNullRef, db::kNullRef, m.recv_event, m.send, m.recv, true, true});
  }
  db::MessageBlockWriter message_blocks(db, shift);
  message_blocks.write_any(messages);
  db::create_indexes(db);

  db::Statement meta = db.prepare("INSERT INTO meta VALUES(?1, ?2)");
  auto put = [&meta](const char* key, std::int64_t value) {
    meta.bind(1, std::string_view(key));
    meta.bind(2, std::to_string(value));
    meta.run();
  };
  put("schema_version", db::kSchemaVersion);
  put("trace_end_ns", end);
  put("bucket_shift", shift);
  put("max_level", events.max_level());
  put("max_message_ns", message_blocks.max_message_ns());
  put("count_processes", trace.processes);
  put("count_events", static_cast<std::int64_t>(trace.events.size()));
  put("count_messages", static_cast<std::int64_t>(trace.messages.size()));
  tx.commit();
  db.set_user_version(db::kSchemaVersion);
}

// A ring of MPI_Sendrecv: in iteration i (from time 10 + 10i to 15 + 10i)
// every rank sends to the next and receives from the previous in one call,
// inside a depth-0 event per rank spanning the run. With `lone_send`, an
// MPI_Send on rank 0 first (at 1-2 ns) whose receive is not traced. Event
// ids: process by process, in start order (write_test_weft): rank 0's are 0
// (the spanning event), 1 (the lone send, if any), then its calls.
inline TestTrace sendrecv_ring_trace(int processes, int iterations, bool lone_send) {
  TestTrace trace;
  trace.processes = processes;
  trace.regions.push_back({6, "MPI_Sendrecv", "mpi", RegionKind::Recv});
  if (lone_send) trace.regions.push_back({7, "MPI_Send", "mpi", RegionKind::Send});
  EventId next_id = 0;
  std::vector<std::vector<EventId>> call(static_cast<std::size_t>(processes));
  auto add = [&](int p, TimeNs start, TimeNs end, std::int64_t region, int depth) {
    trace.events.push_back({p, start, end, region, depth});
    return next_id++;
  };
  for (int p = 0; p < processes; ++p) {
    add(p, 0, 10 * iterations + 100, 0, 0);
    if (p == 0 && lone_send) trace.messages.push_back({0, 1, 1, 3, add(p, 1, 2, 7, 1), -1});
    for (int i = 0; i < iterations; ++i)
      call[static_cast<std::size_t>(p)].push_back(add(p, 10 + 10 * i, 15 + 10 * i, 6, 1));
  }
  for (int i = 0; i < iterations; ++i)
    for (int p = 0; p < processes; ++p) {
      const int to = (p + 1) % processes;
      const auto ui = static_cast<std::size_t>(i);
      trace.messages.push_back({p, to, 10 + 10 * i, 15 + 10 * i, call[static_cast<std::size_t>(p)][ui],
                                call[static_cast<std::size_t>(to)][ui]});
    }
  return trace;
}

// Events of many durations (1 ns to a large part of the trace, so several bucket
// levels), nested calls, one event per process spanning the whole trace, and
// messages between random processes.
inline TestTrace random_test_trace(int processes, int events_per_process, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  TestTrace trace;
  trace.processes = processes;
  TimeNs trace_end = 0;
  for (int p = 0; p < processes; ++p) {
    TimeNs t = static_cast<TimeNs>(rng() % 1000);
    for (int i = 0; i < events_per_process; ++i) {
      // Log-uniform durations spread events over many levels.
      auto duration = static_cast<TimeNs>(std::pow(10.0, static_cast<double>(rng() % 7000) / 1000.0));
      TimeNs start = t;
      TimeNs end = start + duration;
      trace.events.push_back({p, start, end, static_cast<std::int64_t>(1 + rng() % 5), 1});
      if (duration > 100 && rng() % 3 == 0)
        trace.events.push_back({p, start + duration / 4, start + duration / 2, 1, 2});
      t = end + static_cast<TimeNs>(rng() % 5000);
    }
    trace_end = std::max(trace_end, t);
  }
  // The long events: one per process, covering the whole trace.
  for (int p = 0; p < processes; ++p) trace.events.push_back({p, 0, trace_end, 0, 0});
  for (int i = 0; i < processes * events_per_process / 4; ++i) {
    auto send = static_cast<TimeNs>(rng() % static_cast<std::uint64_t>(trace_end));
    TimeNs recv = std::min(trace_end, send + static_cast<TimeNs>(rng() % 200000));
    trace.messages.push_back({static_cast<ProcessIndex>(rng() % static_cast<std::uint64_t>(processes)),
                              static_cast<ProcessIndex>(rng() % static_cast<std::uint64_t>(processes)),
                              send, recv});
  }
  return trace;
}

}  // namespace weft::testing
