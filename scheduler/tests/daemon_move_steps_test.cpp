// A move's steps: every path from what the mover observes to what it does;
// and what the move board keeps.
#include <gtest/gtest.h>

#include "daemon/move_board.hpp"
#include "daemon/move_steps.hpp"

namespace tightpack::daemon {
namespace {

MoveState making() {
  return MoveState{"alice-default", "node-3", 4, 6, MovePhase::Making, 1000, "tightpack-0_ab12"};
}

MoveObserved seen(int64_t replicas, int64_t running_elsewhere, int64_t on_node) {
  MoveObserved o;
  o.replicas = replicas;
  o.running_elsewhere = running_elsewhere;
  o.on_node = on_node;
  return o;
}

TEST(MoveSteps, StateRoundTripsAndBadStatesNameTheField) {
  for (MovePhase phase : {MovePhase::Making, MovePhase::Draining, MovePhase::Breaking}) {
    MoveState s = making();
    s.phase = phase;
    auto back = decode_move_state(encode_move_state(s));
    ASSERT_TRUE(back) << back.error().what();
    EXPECT_EQ(*back, s);
  }
  auto error_of = [](const std::string& text) {
    auto s = decode_move_state(text);
    return s ? std::string("ok") : std::string(s.error().what());
  };
  EXPECT_NE(error_of("[1]").find("is not a JSON object"), std::string::npos);
  EXPECT_NE(error_of("{").find("tightpack.io/move-state"), std::string::npos);
  std::string good = encode_move_state(making());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return error_of(t);
  };
  EXPECT_NE(with("\"phase\":\"making\"", "\"phase\":\"moving\"").find(".phase: \"moving\""),
            std::string::npos);
  EXPECT_NE(with("\"to\":6", "\"to\":4").find(".to: 4 is not above from (4)"), std::string::npos);
  EXPECT_NE(with("\"from\":4", "\"from\":-1").find(".from"), std::string::npos);
  EXPECT_NE(with("\"node\":\"node-3\"", "\"node\":\"\"").find(".node"), std::string::npos);
}

TEST(MoveSteps, MakeDrainBreakDone) {
  MoveState s = making();
  EXPECT_EQ(next_move_step(s, seen(6, 3, 2), 1010, {}).action, MoveAction::Wait);
  // The 2 workers of 4 on node-3 are replaced: 4 run elsewhere.
  EXPECT_EQ(next_move_step(s, seen(6, 4, 2), 1010, {}).action, MoveAction::Drain);
  s.phase = MovePhase::Draining;
  EXPECT_EQ(next_move_step(s, seen(6, 4, 2), 1020, {}).action, MoveAction::Wait);
  MoveObserved drained = seen(6, 4, 2);
  drained.drained = true;
  EXPECT_EQ(next_move_step(s, drained, 1020, {}).action, MoveAction::Lower);
  s.phase = MovePhase::Breaking;
  EXPECT_EQ(next_move_step(s, seen(4, 4, 2), 1030, {}).action, MoveAction::Wait);
  EXPECT_EQ(next_move_step(s, seen(4, 4, 0), 1040, {}).action, MoveAction::Done);
}

TEST(MoveSteps, TheUsersSizeStandsAndTimeoutsUndoTheRaise) {
  MoveState s = making();
  // The user (or the operator's autoscaler) set a size: the move ends, the size kept.
  EXPECT_EQ(next_move_step(s, seen(9, 3, 2), 1010, {}).action, MoveAction::Abandon);
  EXPECT_EQ(next_move_step(s, seen(4, 3, 2), 1010, {}).action, MoveAction::Abandon);
  EXPECT_EQ(next_move_step(s, MoveObserved{}, 1010, {}).action, MoveAction::Abandon);
  // Replacements that never run: the raise is undone.
  const MoveStep late = next_move_step(s, seen(6, 3, 2), 1000 + 301, {});
  EXPECT_EQ(late.action, MoveAction::AbandonLower);
  EXPECT_EQ(late.why, "its replacements did not run within 300 s");
  // A pod waits for room: the node is given back.
  MoveObserved wanted = seen(6, 3, 2);
  wanted.room_wanted = true;
  EXPECT_EQ(next_move_step(s, wanted, 1010, {}).action, MoveAction::AbandonLower);
  s.phase = MovePhase::Draining;
  EXPECT_EQ(next_move_step(s, wanted, 1010, {}).action, MoveAction::AbandonLower);
  // A busy worker is not moved: no drain within the limit, no break.
  EXPECT_EQ(next_move_step(s, seen(6, 4, 2), 1000 + 721, {}).action, MoveAction::AbandonLower);
  EXPECT_EQ(next_move_step(s, seen(7, 4, 2), 1010, {}).action, MoveAction::Abandon);
  // Lowered: a size set since is the user's; workers the operator did not
  // retire there (another worker chosen) end the move after the limit.
  s.phase = MovePhase::Breaking;
  EXPECT_EQ(next_move_step(s, seen(8, 4, 2), 1010, {}).action, MoveAction::Abandon);
  EXPECT_EQ(next_move_step(s, seen(4, 4, 1), 1000 + 301, {}).action, MoveAction::Abandon);
  // A pod waiting once the group is lowered changes nothing: the node empties.
  wanted = seen(4, 4, 1);
  wanted.room_wanted = true;
  EXPECT_EQ(next_move_step(s, wanted, 1010, {}).action, MoveAction::Wait);
}

// Any caller may ask about any cluster name in a namespace it can read: what
// the board keeps of clusters that stopped asking is forgotten.
TEST(MoveBoard, ForgetsClustersThatStoppedAsking) {
  MoveBoard board;
  const auto t0 = MoveBoard::Clock::now();
  PreloadReport drained;
  drained.drained = {"node-3"};
  board.asked("jhub/alice", drained, t0);
  board.asked("jhub/bob", {}, t0 + std::chrono::minutes(5));
  EXPECT_TRUE(board.drained("jhub/alice", "node-3"));
  EXPECT_EQ(board.asked_since(t0 + std::chrono::minutes(1)), std::vector<std::string>{"jhub/bob"});
  board.asked("jhub/carol", {}, t0 + std::chrono::minutes(11));
  EXPECT_FALSE(board.last_asked("jhub/alice"));
  EXPECT_FALSE(board.drained("jhub/alice", "node-3"));
  EXPECT_TRUE(board.last_asked("jhub/bob"));
  EXPECT_EQ(board.asked_since(t0).size(), 2u);
}

// A dask-gateway move is answered `replace` until the mover ends its make,
// and the preload's report is kept whole until its next question.
TEST(MoveBoard, AnswersReplacementsAndKeepsThePreloadsReport) {
  MoveBoard board;
  const auto t0 = MoveBoard::Clock::now();
  EXPECT_FALSE(board.replacing("jhub/abc"));
  board.set_replacing("jhub/abc", "node-2", 3);
  EXPECT_EQ(board.replacing("jhub/abc"), std::make_pair(std::string("node-2"), int64_t{3}));
  PreloadReport report;
  report.raised = {"node-2"};
  report.adaptive = true;
  board.asked("jhub/abc", report, t0);
  EXPECT_EQ(board.report("jhub/abc").raised, std::set<std::string>{"node-2"});
  EXPECT_TRUE(board.report("jhub/abc").adaptive);
  board.asked("jhub/abc", {}, t0);
  EXPECT_TRUE(board.report("jhub/abc").raised.empty());
  EXPECT_FALSE(board.report("jhub/abc").adaptive);
  board.set_replacing("jhub/abc", "node-2", 0);
  EXPECT_FALSE(board.replacing("jhub/abc"));
}

}  // namespace
}  // namespace tightpack::daemon
