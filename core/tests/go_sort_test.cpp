#include "tightpack/go_sort.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace tightpack {
namespace {

struct Case {
  std::vector<int> keys;
  std::vector<int> go_order;
};

// The cases are Go's own answers (go 1.26, sort.Slice), from:
//
//   seed := uint64(88172645463325252)  // xorshift64, keys = next() % K
//   for each {n, K}: keys[i] random; idx = 0..n-1
//   sort.Slice(idx, func(i, j int) bool { return keys[idx[i]] > keys[idx[j]] })
//
// over n = 5, 13, 21, 50, 51, 64, 100, 257, 1000 with few distinct keys, so
// that most elements compare equal and only the exact algorithm gives Go's
// order (every insertion-sort, partition, pattern-breaking and heapsort path).
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
#include "data/go_sort_cases.inc"
  };
  return all;
}

TEST(GoSort, PermutesEqualElementsExactlyAsGoSortSlice) {
  ASSERT_EQ(cases().size(), 11u);
  for (const Case& c : cases()) {
    std::vector<int> idx(c.keys.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
    go_sort_slice(idx, [&](int a, int b) { return c.keys[a] > c.keys[b]; });
    EXPECT_EQ(idx, c.go_order) << "n = " << c.keys.size();
  }
}

TEST(GoSort, SmallSlicesAreInsertionSortedAndStable) {
  std::vector<std::pair<int, int>> v = {{1, 0}, {2, 1}, {1, 2}, {2, 3}};
  go_sort_slice(v, [](const auto& a, const auto& b) { return a.first > b.first; });
  EXPECT_EQ(v, (std::vector<std::pair<int, int>>{{2, 1}, {2, 3}, {1, 0}, {1, 2}}));
  std::vector<int> empty;
  go_sort(empty, [](int a, int b) { return a < b; });
  EXPECT_TRUE(empty.empty());
}

}  // namespace
}  // namespace tightpack
