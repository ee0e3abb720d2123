// The daemon's pacing of costly answers: a burst at once, then turns at the
// rate, per client and in all; a turn too far away is refused without
// being taken.
#include "daemon/request_pacer.hpp"

#include <gtest/gtest.h>

namespace tightpack::daemon {
namespace {

using std::chrono::milliseconds;
using Clock = RequestPacer::Clock;

double wait_ms(const std::optional<Clock::duration>& wait) {
  return wait ? std::chrono::duration<double, std::milli>(*wait).count() : -1;
}

TEST(RequestPacer, ABurstAtOnceThenTurnsAtTheRate) {
  RequestPacer pacer(PacerLimits{2, 3, 100, 100, milliseconds(2000)});
  const auto t0 = Clock::now();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(wait_ms(pacer.reserve("10.0.0.1", t0)), 0) << i;
  EXPECT_NEAR(wait_ms(pacer.reserve("10.0.0.1", t0)), 500, 1);   // one turn ahead: 1/rate
  EXPECT_NEAR(wait_ms(pacer.reserve("10.0.0.1", t0)), 1000, 1);  // two
  EXPECT_NEAR(wait_ms(pacer.reserve("10.0.0.1", t0)), 1500, 1);
  EXPECT_NEAR(wait_ms(pacer.reserve("10.0.0.1", t0)), 2000, 1);
  EXPECT_EQ(wait_ms(pacer.reserve("10.0.0.1", t0)), -1);  // beyond max_wait: refused...
  EXPECT_EQ(wait_ms(pacer.reserve("10.0.0.1", t0)), -1);  // ...and nothing was taken
  // Another client is not held up by the first.
  EXPECT_EQ(wait_ms(pacer.reserve("10.0.0.2", t0)), 0);
  // After the turns taken, one more per 1/rate.
  EXPECT_NEAR(wait_ms(pacer.reserve("10.0.0.1", t0 + milliseconds(2500))), 0, 1);
}

TEST(RequestPacer, AllClientsTogetherShareOneRate) {
  RequestPacer pacer(PacerLimits{100, 100, 10, 5, milliseconds(1000)});
  const auto t0 = Clock::now();
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(wait_ms(pacer.reserve("10.0.1." + std::to_string(i), t0)), 0);
  EXPECT_NEAR(wait_ms(pacer.reserve("10.0.1.9", t0)), 100, 1);
  for (int i = 0; i < 9; ++i) pacer.reserve("10.0.2." + std::to_string(i), t0);
  EXPECT_EQ(wait_ms(pacer.reserve("10.0.3.1", t0)), -1);
  // Ten turns were taken ahead (one second at the rate): the next is free after that.
  EXPECT_NEAR(wait_ms(pacer.reserve("10.0.3.1", t0 + milliseconds(1000))), 100, 1);
}

TEST(RequestPacer, RemembersBoundedClientsForgettingIdleOnesFirst) {
  PacerLimits limits;
  limits.max_clients = 3;
  RequestPacer pacer(limits);
  const auto t0 = Clock::now();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pacer.reserve("c" + std::to_string(i), t0));
  EXPECT_FALSE(pacer.reserve("c3", t0));  // all three still owe turns: no room
  EXPECT_EQ(pacer.clients(), 3u);
  // Once their buckets have filled again they are forgotten for a newcomer.
  EXPECT_TRUE(pacer.reserve("c3", t0 + std::chrono::seconds(10)));
  EXPECT_EQ(pacer.clients(), 1u);
}

}  // namespace
}  // namespace tightpack::daemon
