// The daemon's pacing of costly answers: a burst at once, then turns at the
// rate, per client and in all; a turn too far away is refused without
// being taken.
#include "daemon/request_pacer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

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

TEST(RequestPacer, ACredentialIsPacedWhereverItAsksFrom) {
  RequestPacer pacer(PacerLimits{1, 2, 100, 100, milliseconds(5000)});
  const auto t0 = Clock::now();
  EXPECT_EQ(wait_ms(pacer.reserve("10.0.4.1", t0, "alice")), 0);
  EXPECT_EQ(wait_ms(pacer.reserve("10.0.4.2", t0, "alice")), 0);
  EXPECT_NEAR(wait_ms(pacer.reserve("10.0.4.3", t0, "alice")), 1000, 1);  // her burst is spent
  EXPECT_EQ(wait_ms(pacer.reserve("10.0.4.4", t0, "bob")), 0);
  EXPECT_EQ(wait_ms(pacer.reserve("10.0.4.5", t0)), 0);  // no credential of its own
  EXPECT_EQ(pacer.credentials(), 2u);
}

TEST(RequestPacer, MadeUpCredentialsCannotLockARealOneOut) {
  PacerLimits limits;
  limits.max_clients = 3;
  RequestPacer pacer(limits);
  const auto t0 = Clock::now();
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(pacer.reserve("10.0.5.1", t0, "made-up-" + std::to_string(i)));
  // No room to remember one more credential: served, paced per address only.
  EXPECT_EQ(wait_ms(pacer.reserve("10.0.5.2", t0, "real")), 0);
  EXPECT_EQ(pacer.credentials(), 3u);
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

// 200 sidebars, each asking every 5 s, spread over the seconds (40 a second)
// for a minute: how many requests are refused.
int refused_of_200_sidebars(RequestPacer& pacer, Clock::time_point t) {
  int refused = 0;
  for (int second = 0; second < 60; ++second) {
    for (int i = 0; i < 40; ++i) {
      const int client = (second % 5) * 40 + i;
      const std::string address =
          "10.1." + std::to_string(client / 250) + "." + std::to_string(client % 250);
      if (!pacer.reserve(address, t + milliseconds(second * 1000 + i * 25))) ++refused;
    }
  }
  return refused;
}

TEST(RequestPacer, TheSharedRateGrowsWithTheClientsThatAsk) {
  PacerLimits limits;  // 10 a second at least, 0.4 more per client, 100 at most
  RequestPacer pacer(limits);
  auto t = Clock::now();
  EXPECT_EQ(refused_of_200_sidebars(pacer, t), 0);
  EXPECT_DOUBLE_EQ(pacer.shared_rate(), 80);  // 200 clients asked within the minute, × 0.4
  // Once they have stopped asking for a window, the rate is the floor again.
  t += std::chrono::seconds(200);
  pacer.reserve("10.9.9.9", t);
  EXPECT_DOUBLE_EQ(pacer.shared_rate(), limits.rate);

  // One fixed rate of 10 a second (before): most of them wait past 5 s, refused.
  limits.per_active_client = 0;
  RequestPacer fixed(limits);
  EXPECT_GT(refused_of_200_sidebars(fixed, Clock::now()), 1000);
}

TEST(RequestPacer, ManyAddressesCannotRaiseTheSharedRatePastItsCeiling) {
  PacerLimits limits;
  RequestPacer pacer(limits);
  const auto t0 = Clock::now();
  for (int i = 0; i < 1000; ++i)
    pacer.reserve("10.2." + std::to_string(i / 250) + "." + std::to_string(i % 250), t0);
  pacer.reserve("10.3.0.1", t0 + std::chrono::seconds(2));
  EXPECT_DOUBLE_EQ(pacer.shared_rate(), limits.max_rate);
}

}  // namespace
}  // namespace tightpack::daemon
