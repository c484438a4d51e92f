// Undo and redo of view changes (app/view_history.h): settled changes are
// recorded once, input in progress is not, a new change drops the redo branch.
#include <gtest/gtest.h>

#include "app/view_history.h"

using weft::app::TimelineViewport;
using weft::app::ViewHistory;
using weft::app::ViewState;

namespace {

ViewState at(double t0, double t1) { return {TimelineViewport{t0, t1, 0, 4}, TimelineViewport{0, 10, 0, 4}}; }

// Shows `s` until it settles (no input for longer than the settle time).
void settle(ViewHistory& h, const ViewState& s, double& clock) {
  h.observe(s, false, clock);
  clock += 1.0;
  h.observe(s, false, clock);
}

}  // namespace

TEST(ViewHistory, UndoAndRedoWalkTheSettledStates) {
  double clock = 0;
  ViewHistory h(at(0, 100));
  settle(h, at(10, 50), clock);
  settle(h, at(20, 30), clock);
  EXPECT_EQ(h.size(), 3u);
  EXPECT_EQ(h.undo(at(20, 30)), at(10, 50));
  EXPECT_EQ(h.undo(at(10, 50)), at(0, 100));
  EXPECT_FALSE(h.undo(at(0, 100)).has_value());
  EXPECT_EQ(h.redo(), at(10, 50));
  EXPECT_EQ(h.redo(), at(20, 30));
  EXPECT_FALSE(h.redo().has_value());
}

TEST(ViewHistory, InputInProgressAndUnsettledStatesAreNotRecorded) {
  ViewHistory h(at(0, 100));
  // A wheel zoom over several frames: only its end is one step.
  h.observe(at(5, 95), true, 0.0);
  h.observe(at(10, 90), true, 0.1);
  h.observe(at(15, 85), false, 0.2);
  h.observe(at(15, 85), false, 0.3);  // 0.1 s later: not settled yet
  EXPECT_EQ(h.size(), 1u);
  h.observe(at(15, 85), false, 0.7);
  EXPECT_EQ(h.size(), 2u);
  // An unrecorded change is undone to the state it left.
  EXPECT_EQ(h.undo(at(40, 60)), at(15, 85));
}

TEST(ViewHistory, ANewChangeDropsTheRedoBranch) {
  double clock = 0;
  ViewHistory h(at(0, 100));
  settle(h, at(10, 50), clock);
  settle(h, at(20, 30), clock);
  ASSERT_TRUE(h.undo(at(20, 30)).has_value());  // back at (10, 50)
  settle(h, at(60, 70), clock);
  EXPECT_EQ(h.size(), 3u);
  EXPECT_FALSE(h.redo().has_value());
  EXPECT_EQ(h.undo(at(60, 70)), at(10, 50));
}
