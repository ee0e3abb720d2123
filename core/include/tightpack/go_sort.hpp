// Go's sort.Slice and sort.Sort: pattern-defeating quicksort (Go 1.19+,
// src/sort/zsortfunc.go), step for step.
//
// cluster-autoscaler orders pending pods by priority with sort.Slice and its
// scale-down candidates with sort.Sort. Neither is stable: above 12 elements,
// elements that compare equal end up in an order that depends only on the
// input, through pdqsort's partitioning and its xorshift pattern breaker
// seeded with the length. To name the replicas and nodes cluster-autoscaler
// names, the engine must permute them exactly as Go does, so this is the same
// sequence of comparisons and swaps, not merely some correct sort.
#pragma once

#include <bit>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace tightpack {

namespace go_sort_detail {

enum class Hint { kUnknown, kIncreasing, kDecreasing };

// less(i, j) and swap(i, j) on positions, as Go's lessSwap.
template <class Less, class Swap>
struct Data {
  Less less;
  Swap swap;
};

template <class D>
void insertion_sort(D& d, int a, int b) {
  for (int i = a + 1; i < b; ++i) {
    for (int j = i; j > a && d.less(j, j - 1); --j) d.swap(j, j - 1);
  }
}

template <class D>
void sift_down(D& d, int lo, int hi, int first) {
  int root = lo;
  for (;;) {
    int child = 2 * root + 1;
    if (child >= hi) return;
    if (child + 1 < hi && d.less(first + child, first + child + 1)) ++child;
    if (!d.less(first + root, first + child)) return;
    d.swap(first + root, first + child);
    root = child;
  }
}

template <class D>
void heap_sort(D& d, int a, int b) {
  const int first = a, lo = 0, hi = b - a;
  for (int i = (hi - 1) / 2; i >= 0; --i) sift_down(d, i, hi, first);
  for (int i = hi - 1; i >= 0; --i) {
    d.swap(first, first + i);
    sift_down(d, lo, i, first);
  }
}

template <class D>
std::pair<int, bool> partition(D& d, int a, int b, int pivot) {
  d.swap(a, pivot);
  int i = a + 1, j = b - 1;
  while (i <= j && d.less(i, a)) ++i;
  while (i <= j && !d.less(j, a)) --j;
  if (i > j) {
    d.swap(j, a);
    return {j, true};
  }
  d.swap(i, j);
  ++i;
  --j;
  for (;;) {
    while (i <= j && d.less(i, a)) ++i;
    while (i <= j && !d.less(j, a)) --j;
    if (i > j) break;
    d.swap(i, j);
    ++i;
    --j;
  }
  d.swap(j, a);
  return {j, false};
}

template <class D>
int partition_equal(D& d, int a, int b, int pivot) {
  d.swap(a, pivot);
  int i = a + 1, j = b - 1;
  for (;;) {
    while (i <= j && !d.less(a, i)) ++i;
    while (i <= j && d.less(a, j)) --j;
    if (i > j) break;
    d.swap(i, j);
    ++i;
    --j;
  }
  return i;
}

template <class D>
bool partial_insertion_sort(D& d, int a, int b) {
  constexpr int kMaxSteps = 5, kShortestShifting = 50;
  int i = a + 1;
  for (int step = 0; step < kMaxSteps; ++step) {
    while (i < b && !d.less(i, i - 1)) ++i;
    if (i == b) return true;
    if (b - a < kShortestShifting) return false;
    d.swap(i, i - 1);
    if (i - a >= 2) {
      for (int j = i - 1; j >= 1; --j) {
        if (!d.less(j, j - 1)) break;
        d.swap(j, j - 1);
      }
    }
    if (b - i >= 2) {
      for (int j = i + 1; j < b; ++j) {
        if (!d.less(j, j - 1)) break;
        d.swap(j, j - 1);
      }
    }
  }
  return false;
}

template <class D>
void break_patterns(D& d, int a, int b) {
  const int length = b - a;
  if (length < 8) return;
  uint64_t random = static_cast<uint64_t>(length);  // Go's xorshift(length)
  const uint64_t modulus = uint64_t{1} << std::bit_width(static_cast<uint64_t>(length));
  for (int idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1; ++idx) {
    random ^= random << 13;
    random ^= random >> 7;
    random ^= random << 17;
    int other = static_cast<int>(random & (modulus - 1));
    if (other >= length) other -= length;
    d.swap(idx, a + other);
  }
}

template <class D>
std::pair<int, int> order2(D& d, int a, int b, int& swaps) {
  if (d.less(b, a)) {
    ++swaps;
    return {b, a};
  }
  return {a, b};
}

template <class D>
int median(D& d, int a, int b, int c, int& swaps) {
  std::tie(a, b) = order2(d, a, b, swaps);
  std::tie(b, c) = order2(d, b, c, swaps);
  std::tie(a, b) = order2(d, a, b, swaps);
  return b;
}

template <class D>
std::pair<int, Hint> choose_pivot(D& d, int a, int b) {
  constexpr int kShortestNinther = 50, kMaxSwaps = 4 * 3;
  const int l = b - a;
  int swaps = 0;
  int i = a + l / 4 * 1, j = a + l / 4 * 2, k = a + l / 4 * 3;
  if (l >= 8) {
    if (l >= kShortestNinther) {
      i = median(d, i - 1, i, i + 1, swaps);
      j = median(d, j - 1, j, j + 1, swaps);
      k = median(d, k - 1, k, k + 1, swaps);
    }
    j = median(d, i, j, k, swaps);
  }
  if (swaps == 0) return {j, Hint::kIncreasing};
  if (swaps == kMaxSwaps) return {j, Hint::kDecreasing};
  return {j, Hint::kUnknown};
}

template <class D>
void reverse_range(D& d, int a, int b) {
  for (int i = a, j = b - 1; i < j; ++i, --j) d.swap(i, j);
}

template <class D>
void pdqsort(D& d, int a, int b, int limit) {
  constexpr int kMaxInsertion = 12;
  bool was_balanced = true, was_partitioned = true;
  for (;;) {
    const int length = b - a;
    if (length <= kMaxInsertion) {
      insertion_sort(d, a, b);
      return;
    }
    if (limit == 0) {
      heap_sort(d, a, b);
      return;
    }
    if (!was_balanced) {
      break_patterns(d, a, b);
      --limit;
    }
    auto [pivot, hint] = choose_pivot(d, a, b);
    if (hint == Hint::kDecreasing) {
      reverse_range(d, a, b);
      pivot = (b - 1) - (pivot - a);
      hint = Hint::kIncreasing;
    }
    if (was_balanced && was_partitioned && hint == Hint::kIncreasing) {
      if (partial_insertion_sort(d, a, b)) return;
    }
    if (a > 0 && !d.less(a - 1, pivot)) {
      a = partition_equal(d, a, b, pivot);
      continue;
    }
    auto [mid, already] = partition(d, a, b, pivot);
    was_partitioned = already;
    const int left = mid - a, right = b - mid, balance_threshold = length / 8;
    if (left < right) {
      was_balanced = left >= balance_threshold;
      pdqsort(d, a, mid, limit);
      a = mid + 1;
    } else {
      was_balanced = right >= balance_threshold;
      pdqsort(d, mid + 1, b, limit);
      b = mid;
    }
  }
}

}  // namespace go_sort_detail

// sort.Slice(v, less) where less compares elements, as Go's less compares v[i], v[j].
template <class T, class Less>
void go_sort_slice(std::vector<T>& v, Less less) {
  const int n = static_cast<int>(v.size());
  auto by_index = [&](int i, int j) { return less(v[i], v[j]); };
  auto swap = [&](int i, int j) { std::swap(v[i], v[j]); };
  go_sort_detail::Data<decltype(by_index), decltype(swap)> d{by_index, swap};
  go_sort_detail::pdqsort(d, 0, n, std::bit_width(static_cast<uint64_t>(n)));
}

// sort.Sort(data): the same algorithm; it returns early below two elements,
// which changes nothing.
template <class T, class Less>
void go_sort(std::vector<T>& v, Less less) {
  if (v.size() > 1) go_sort_slice(v, less);
}

}  // namespace tightpack
