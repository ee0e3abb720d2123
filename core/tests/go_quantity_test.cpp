#include "tightpack/go_quantity.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "test_util.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack {
namespace {

GoQuantity q(std::string_view text) {
  return GoQuantity::of(*Quantity::parse(text));
}

int64_t sum(std::initializer_list<std::string_view> texts, int32_t shift) {
  GoQuantity total;
  for (auto t : texts) total.add(q(t));
  return total.scaled(shift);
}

// The answers are resource.Quantity's (apimachinery v0.37.2), as
// tests/conformance/quantities.py checks them by the thousand.
TEST(GoQuantity, FractionsOfAUnitAddBeforeRoundingUp) {
  EXPECT_EQ(sum({"0.5", "0.5"}, 0), 1);        // not 2
  EXPECT_EQ(sum({"1.5m", "1.5m"}, 3), 3);      // not 4
  EXPECT_EQ(sum({"0.0005", "0.0005"}, 3), 1);  // 1m, not 2m
}

TEST(GoQuantity, AnOverflowingAdditionBecomesAnInfDec) {
  // int64Amount{5,18} + {5,18} = {10,18}: its Value overflows to 0.
  EXPECT_EQ(sum({"5e18", "5e18"}, 0), 0);
  // 2^62 + 2^62 overflows int64: an inf.Dec at scale 0, whose Value keeps the low bits.
  EXPECT_EQ(sum({"4611686018427387904", "4611686018427387904"}, 0),
            std::numeric_limits<int64_t>::min());
}

TEST(GoQuantity, ScalesFarApartNeverSpellTheirZeros) {
  // 1e40 + 1e20 overflows the alignment: an inf.Dec at scale -20, whose Value
  // multiplies by int64(math.Pow10(20)), math.MinInt64 on amd64.
  EXPECT_EQ(sum({"1e40", "1e20"}, 0), std::numeric_limits<int64_t>::min());
  GoQuantity huge = q("1e2000000000");
  huge.add(q("1m"));  // done at once; Go builds 10^2000000003
  // 10^2000000000 is 0 modulo 2^64; the thousandth rounds up to one.
  EXPECT_EQ(huge.scaled(0), 1);
}

TEST(GoQuantity, CmpWithAnInfDecConvertsTheCandidate) {
  GoQuantity a = q("1e30");  // an int64Amount: Value 0 (its scaling overflows)
  EXPECT_EQ(a.scaled(0), 0);
  GoQuantity b = q("12345678901234567890");  // 20 digits: an inf.Dec
  EXPECT_GT(a.compare(b), 0);
  // Now an inf.Dec at scale -30, as maxResourceList keeps it.
  EXPECT_EQ(a.scaled(0), std::numeric_limits<int64_t>::min());
}

TEST(GoQuantity, DecodeKeepsQuantitiesOnlyWhereInt64SumsWouldDiffer) {
  auto plain = testing::pod_from_json(R"({"metadata": {"name": "p"}, "spec": {"containers": [
      {"name": "a", "resources": {"requests": {"cpu": "1500m", "memory": "4Gi"}}},
      {"name": "b", "resources": {"requests": {"cpu": 1.5, "memory": "512Mi"}}}]}})");
  EXPECT_FALSE(plain.go_requests);
  EXPECT_EQ(pod_requests(plain, false),
            testing::resources({{"cpu", 3000}, {"memory", 4608 * testing::kMi}}));

  auto halves = testing::pod_from_json(R"({"metadata": {"name": "p"}, "spec": {"containers": [
      {"name": "a", "resources": {"requests": {"cpu": "1.5m", "memory": "0.5"}}},
      {"name": "b", "resources": {"limits": {"cpu": "1.5m", "memory": "0.5"}}}]}})");
  ASSERT_TRUE(halves.go_requests);
  EXPECT_EQ(pod_requests(halves, false), testing::resources({{"cpu", 3}, {"memory", 1}}));
  // Each container alone still rounds up, as kube-scheduler's per-container views do.
  EXPECT_EQ(*find_resource(halves.containers[1].requests, "cpu"), 2);
  // A BinarySI fraction is an inf.Dec in Go, even where it is whole.
  EXPECT_TRUE(testing::pod_from_json(R"({"metadata": {"name": "p"}, "spec": {"containers": [
      {"name": "a", "resources": {"requests": {"memory": "0.5Gi"}}}]}})")
                  .go_requests);
}

}  // namespace
}  // namespace tightpack
