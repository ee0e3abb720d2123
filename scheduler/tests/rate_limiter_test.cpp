// client-go's token bucket, and the deadline a fenced write brings to it: a
// token that would come too late is not taken, and the wait ends at once.
#include "kube/rate_limiter.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

namespace tightpack::kube {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(RateLimiter, ABurstThenTheRate) {
  RateLimiter limiter(20, 2);
  const auto t = Clock::now();
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(limiter.acquire());
  // two at once, then two at 20/s: about 100 ms
  EXPECT_GE(Clock::now() - t, 80ms);
  EXPECT_LT(Clock::now() - t, 1s);
}

TEST(RateLimiter, ATokenAfterTheDeadlineIsNotTaken) {
  RateLimiter limiter(1, 1);
  ASSERT_TRUE(limiter.acquire());
  // The next token is a second away: a deadline 200 ms out is refused at once.
  const auto t = Clock::now();
  EXPECT_FALSE(limiter.acquire(nullptr, Clock::now() + 200ms));
  EXPECT_LT(Clock::now() - t, 100ms);
  // A deadline beyond the next token waits for it and takes it.
  EXPECT_TRUE(limiter.acquire(nullptr, Clock::now() + 2s));
}

TEST(RateLimiter, AStopEndsTheWait) {
  RateLimiter limiter(0.1, 1);
  ASSERT_TRUE(limiter.acquire());
  std::atomic<bool> stop{true};
  EXPECT_FALSE(limiter.acquire(&stop));
}

TEST(RateLimiter, NoLimit) {
  RateLimiter limiter(0, 1);
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(limiter.acquire(nullptr, Clock::now()));
}

}  // namespace
}  // namespace tightpack::kube
