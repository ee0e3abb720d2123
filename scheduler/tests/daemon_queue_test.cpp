// The scheduling queue: order, backoff, the unschedulable set and its flush.
#include <gtest/gtest.h>

#include "daemon/queue.hpp"

namespace tightpack::daemon {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(SchedulingQueue, PopsByPriorityThenAge) {
  SchedulingQueue q(seconds(1), seconds(10));
  const auto t = Clock::now();
  q.add("ns/old-low", 0, "2026-01-01T00:00:00Z", t);
  q.add("ns/new-high", 10, "2026-01-02T00:00:00Z", t);
  q.add("ns/new-low", 0, "2026-01-02T00:00:00Z", t);
  q.add("ns/placeholder", -10, "2025-01-01T00:00:00Z", t);
  EXPECT_EQ(q.pop(t), "ns/new-high");
  EXPECT_EQ(q.pop(t), "ns/old-low");
  EXPECT_EQ(q.pop(t), "ns/new-low");
  EXPECT_EQ(q.pop(t), "ns/placeholder");
  EXPECT_EQ(q.pop(t), std::nullopt);
}

TEST(SchedulingQueue, UnschedulableWaitsForAnEventThenBacksOff) {
  SchedulingQueue q(seconds(1), seconds(10));
  const auto t = Clock::now();
  q.add("ns/a", 0, "", t);
  ASSERT_EQ(q.pop(t), "ns/a");
  q.unschedulable("ns/a", t);
  EXPECT_EQ(q.counts().unschedulable, 1u);
  EXPECT_EQ(q.pop(t + seconds(60)), std::nullopt);  // no event: it waits
  // An event half a second after the attempt: the 1 s backoff is not over.
  q.move_all(t + milliseconds(500));
  EXPECT_EQ(q.counts().backoff, 1u);
  EXPECT_EQ(q.pop(t + milliseconds(900)), std::nullopt);
  EXPECT_EQ(q.pop(t + milliseconds(1000)), "ns/a");
}

TEST(SchedulingQueue, BackoffDoublesUpToTheMaximum) {
  SchedulingQueue q(seconds(1), seconds(10));
  auto t = Clock::now();
  q.add("ns/a", 0, "", t);
  std::vector<int64_t> waits;
  for (int attempt = 0; attempt < 6; ++attempt) {
    ASSERT_TRUE(q.pop(t));
    q.backoff("ns/a", t);
    const auto next = q.next_ready(t);
    ASSERT_TRUE(next);
    waits.push_back(std::chrono::duration_cast<milliseconds>(*next - t).count());
    t = *next;
  }
  EXPECT_EQ(waits, (std::vector<int64_t>{1000, 2000, 4000, 8000, 10000, 10000}));
}

TEST(SchedulingQueue, UnschedulablePodsAreRetriedAfterFiveMinutesWithoutAnEvent) {
  SchedulingQueue q(seconds(1), seconds(10));
  const auto t = Clock::now();
  q.add("ns/a", 0, "", t);
  ASSERT_TRUE(q.pop(t));
  q.unschedulable("ns/a", t);
  EXPECT_EQ(q.next_ready(t), t + kMaxInUnschedulable);
  EXPECT_EQ(q.pop(t + kMaxInUnschedulable - seconds(1)), std::nullopt);
  EXPECT_EQ(q.pop(t + kMaxInUnschedulable), "ns/a");
}

TEST(SchedulingQueue, AnUpdateOfAWaitingPodRetriesIt) {
  SchedulingQueue q(seconds(1), seconds(10));
  const auto t = Clock::now();
  q.add("ns/a", 0, "", t);
  ASSERT_TRUE(q.pop(t));
  q.unschedulable("ns/a", t);
  q.add("ns/a", 0, "", t + seconds(2));  // e.g. a toleration was added
  EXPECT_EQ(q.pop(t + seconds(2)), "ns/a");
}

TEST(SchedulingQueue, RemovedPodsLeaveEveryPart) {
  SchedulingQueue q(seconds(1), seconds(10));
  const auto t = Clock::now();
  q.add("ns/active", 0, "", t);
  q.add("ns/backoff", 0, "", t);
  q.add("ns/waiting", 0, "", t);
  ASSERT_TRUE(q.pop(t));
  ASSERT_TRUE(q.pop(t));
  ASSERT_TRUE(q.pop(t));
  q.backoff("ns/backoff", t);
  q.unschedulable("ns/waiting", t);
  q.add("ns/active", 0, "", t);
  for (const char* k : {"ns/active", "ns/backoff", "ns/waiting"}) q.remove(k);
  EXPECT_EQ(q.size(), 0u);
  const auto c = q.counts();
  EXPECT_EQ(c.active + c.backoff + c.unschedulable, 0u);
  EXPECT_EQ(q.pop(t + seconds(3600)), std::nullopt);
}

}  // namespace
}  // namespace tightpack::daemon
