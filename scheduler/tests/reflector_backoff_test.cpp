// The reflector's backoff, as client-go's backoff manager keeps it: across
// list-and-watch cycles, reset only after two quiet minutes.
#include <gtest/gtest.h>

#include "kube/reflector.hpp"

namespace tightpack::kube {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(ReflectorBackoff, DoublesAcrossCyclesToThirtySeconds) {
  milliseconds d{0};
  std::vector<int64_t> seen;
  for (int i = 0; i < 8; ++i) {
    d = Reflector::next_delay(d, d + seconds(1));  // the next failure follows the last wait
    seen.push_back(d.count());
  }
  EXPECT_EQ(seen, (std::vector<int64_t>{800, 1600, 3200, 6400, 12800, 25600, 30000, 30000}));
}

TEST(ReflectorBackoff, ResetsAfterTwoQuietMinutes) {
  EXPECT_EQ(Reflector::next_delay(milliseconds(30000), seconds(119)).count(), 30000);
  EXPECT_EQ(Reflector::next_delay(milliseconds(30000), seconds(121)).count(), 800);
}

}  // namespace
}  // namespace tightpack::kube
