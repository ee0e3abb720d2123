// Go's int64 arithmetic for the expressions kube-scheduler evaluates in int64.
//
// In Go, + − × on int64 wrap around modulo 2^64; in C++ signed overflow is
// undefined behaviour. Inputs are untrusted (an exabyte node, two containers of
// 7Ei each), so where kube-scheduler's own arithmetic can overflow the engine
// computes the same wrapped result, well defined, instead of UB.
#pragma once

#include <cstdint>
#include <limits>

namespace tightpack {

// Unsigned arithmetic is modular, and since C++20 the conversion back to
// int64_t is too: exactly Go's wrap-around.
constexpr int64_t go_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
constexpr int64_t go_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
constexpr int64_t go_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// a / b for int64 as Go truncates it, b > 0. The scores divide by node
// capacities once per node and resource, and a 64-bit idiv costs 40-90 cycles
// on the Xeons this runs on: when both operands are below 2^53 the quotient is
// estimated in double precision (within one of the truth) and corrected with
// an exact integer multiply, so the result is the same integer.
constexpr int64_t kExactInDouble = int64_t{1} << 53;
inline int64_t go_div(int64_t a, int64_t b) {
  if (a >= 0 && a < kExactInDouble && b > 0 && b < kExactInDouble) {
    auto q = static_cast<int64_t>(static_cast<double>(a) / static_cast<double>(b));
    int64_t r = a - q * b;
    if (r < 0) {
      --q;
    } else if (r >= b) {
      ++q;
    }
    return q;
  }
  return a / b;
}

// int64(f) for a float64 f. Go leaves an out-of-range result to the
// implementation; on amd64, where kube-scheduler usually runs, CVTTSD2SI gives
// the "integer indefinite" value math.MinInt64 (arm64 would saturate instead).
inline int64_t go_int64(double f) {
  // [-2^63, 2^63) is int64's range, both ends exact in a double; NaN fails both.
  constexpr double kMin = static_cast<double>(std::numeric_limits<int64_t>::min());
  if (f >= kMin && f < -kMin) return static_cast<int64_t>(f);
  return std::numeric_limits<int64_t>::min();
}

}  // namespace tightpack
