#include "tightpack/go_int.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace tightpack {
namespace {

// go_div's double-precision estimate must always land on the exact integer
// quotient; compare it with the hardware division over the ranges the
// scorers use and around the edges of the fast path.
TEST(GoDiv, EqualsIntegerDivision) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> any(0, kExactInDouble - 1);
  std::uniform_int_distribution<int64_t> small(1, 1000000);
  for (int i = 0; i < 2000000; ++i) {
    int64_t a = i % 2 ? any(rng) : small(rng) * small(rng);
    int64_t b = i % 3 ? small(rng) : any(rng) % (kExactInDouble - 1) + 1;
    ASSERT_EQ(go_div(a, b), a / b) << a << " / " << b;
  }
  const int64_t edge = kExactInDouble;
  for (int64_t a :
       {edge - 1, edge, edge + 1, edge - 7, int64_t{0}, std::numeric_limits<int64_t>::max()}) {
    for (int64_t b : {int64_t{1}, int64_t{3}, int64_t{100}, edge - 1, edge, edge + 3}) {
      EXPECT_EQ(go_div(a, b), a / b) << a << " / " << b;
    }
  }
  EXPECT_EQ(go_div(-7, 2), -3);  // truncation toward zero, as Go
}

TEST(GoInt, WrapsLikeGo) {
  EXPECT_EQ(go_add(std::numeric_limits<int64_t>::max(), 1), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(go_mul(int64_t{1} << 62, 4), 0);
  EXPECT_EQ(go_int64(1e300), std::numeric_limits<int64_t>::min());
}

}  // namespace
}  // namespace tightpack
