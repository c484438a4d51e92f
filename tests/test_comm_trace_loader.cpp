// The structure analysis' loader (db/structure/comm_trace_loader.h) reads the
// messages and collective members on a second connection and thread while it
// reads the events, and on its one connection when asked to or when the file
// is locked to that connection: all three give the same trace.
#include <gtest/gtest.h>

#include <string>

#include "import_test_support.h"
#include "store/sqlite.h"
#include "structure/comm_trace_loader.h"

using weft::test::quoted;
using weft::test::run_command;

namespace {

// Every column of the loaded trace, as text.
std::string dump(const weft::db::LoadedCommTrace& l) {
  const weft::structure::CommTrace& t = l.trace;
  std::string s = "processes " + std::to_string(t.process_count) + " unmatched " +
                  std::to_string(l.unmatched_messages) + "\n";
  auto column = [&](const char* name, const auto& values) {
    s += name;
    for (const auto& v : values) s += " " + std::to_string(static_cast<long long>(v));
    s += "\n";
  };
  column("process", t.process);
  column("start", t.start);
  column("end", t.end);
  column("kind", t.kind);
  column("event", t.event_id);
  column("first_op", t.process_first_op);
  column("send", t.msg_send_op);
  column("recv", t.msg_recv_op);
  column("post", t.msg_post_op);
  column("send_done", t.msg_send_done_op);
  column("coll_first", t.coll_first);
  column("coll_members", t.coll_members);
  column("region", l.region);
  column("message_id", l.message_id);
  column("collective_id", l.collective_id);
  return s;
}

}  // namespace

TEST(CommTraceLoader, OneOrTwoConnectionsAndALockedFileLoadTheSameTrace) {
  weft::test::TempDir dir("loader");
  const std::filesystem::path trace = dir.path / "trace", weft = dir.path / "run.weft";
  const std::string run = weft.string();
  auto s = run_command(std::string(WEFT_BINARY) + " synth amg-like -n 12 -i 3 --jitter 0.2 -o " + quoted(trace));
  ASSERT_EQ(s.exit_code, 0) << s.output;
  auto i = run_command(std::string(WEFT_BINARY) + " import -q --no-analyze " + quoted(trace / "traces.otf2") +
                       " -o " + quoted(weft));
  ASSERT_EQ(i.exit_code, 0) << i.output;

  weft::db::Database db(run, weft::db::Database::Mode::ReadWrite);
  const std::string two = dump(weft::db::load_comm_trace(db, {"", true}));
  EXPECT_NE(two.find("collective_id "), std::string::npos);
  EXPECT_GT(two.size(), 2000u);
  EXPECT_EQ(dump(weft::db::load_comm_trace(db, {"", false})), two);

  // Locked: a rollback journal and an exclusive transaction keep every other
  // connection out, so the loader reads everything on this one.
  db.exec("PRAGMA journal_mode=DELETE");
  db.exec("BEGIN EXCLUSIVE");
  {
    weft::db::Database other(run, weft::db::Database::Mode::ReadOnly);
    sqlite3_busy_timeout(other.handle(), 0);
    EXPECT_THROW(other.query_int("SELECT count(*) FROM processes"), weft::Error) << "the file should be locked";
  }
  EXPECT_EQ(dump(weft::db::load_comm_trace(db, {"", true})), two);
  db.exec("COMMIT");
}
