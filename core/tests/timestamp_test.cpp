#include "tightpack/timestamp.hpp"

#include <gtest/gtest.h>

namespace tightpack {
namespace {

TEST(Rfc3339, UtcSecondsSinceTheEpoch) {
  EXPECT_EQ(rfc3339_seconds("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(rfc3339_seconds("2024-01-01T00:01:40Z"), 1704067300);
  EXPECT_EQ(rfc3339_seconds("2000-02-29T12:00:00Z"), 951825600);  // a leap day
  EXPECT_EQ(rfc3339_seconds("1969-12-31T23:59:59Z"), -1);
}

TEST(Rfc3339, FractionsAndOffsets) {
  EXPECT_EQ(rfc3339_seconds("2024-01-01T00:01:40.123456Z"), 1704067300);
  EXPECT_EQ(rfc3339_seconds("2024-01-01T02:01:40+02:00"), 1704067300);
  EXPECT_EQ(rfc3339_seconds("2023-12-31T19:01:40-05:00"), 1704067300);
}

TEST(Rfc3339, AnythingElseIsNoTime) {
  for (const char* bad :
       {"", "2024-01-01", "2024-01-01T00:01:40", "2024-13-01T00:00:00Z", "2024-01-01T24:00:00Z",
        "2024-01-01T00:00:00Zjunk", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00+0200",
        "yesterday at noon"}) {
    EXPECT_FALSE(rfc3339_seconds(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace tightpack
