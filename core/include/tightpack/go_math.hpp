// Go's math functions that kube-scheduler's scores call, operation for
// operation, so that a score rounds the same way on every platform the engine
// runs on (the C library's log is accurate, but not always to the same last
// bit, and the browser's Math.log is another implementation again).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tightpack {

// std::bit_cast, which Emscripten's libc++ 13 lacks.
inline uint64_t double_bits(double x) {
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
inline double double_of_bits(uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// math.Log as Go computes it on amd64 (math/log_amd64.s, the same steps as the
// portable math/log.go, FreeBSD's e_log.c): frexp, one division, two
// polynomials in s^4. Compiled without contraction (-ffp-contract=off), as Go
// on amd64 does not fuse a multiply and an add either.
inline double go_log(double x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01; /* 3fe62e42 fee00000 */
  constexpr double kLn2Lo = 1.90821492927058770002e-10; /* 3dea39ef 35793c76 */
  constexpr double kL1 = 6.666666666666735130e-01;      /* 3FE55555 55555593 */
  constexpr double kL2 = 3.999999999940941908e-01;      /* 3FD99999 9997FA04 */
  constexpr double kL3 = 2.857142874366239149e-01;      /* 3FD24924 94229359 */
  constexpr double kL4 = 2.222219843214978396e-01;      /* 3FCC71C5 1D8E78AF */
  constexpr double kL5 = 1.818357216161805012e-01;      /* 3FC74664 96CB03DE */
  constexpr double kL6 = 1.531383769920937332e-01;      /* 3FC39A09 D078C69F */
  constexpr double kL7 = 1.479819860511658591e-01;      /* 3FC2F112 DF3E5244 */
  constexpr double kSqrt2Half = 7.07106781186547524401e-01;
  if (std::isnan(x) || x == std::numeric_limits<double>::infinity()) return x;
  if (x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -std::numeric_limits<double>::infinity();
  // The assembly's frexp: the exponent and mantissa bits of a normal number
  // (the scores take the logarithm of counts, never of a subnormal).
  const uint64_t bits = double_bits(x);
  double f1 = double_of_bits((bits & 0x000FFFFFFFFFFFFFULL) | 0x3FE0000000000000ULL);
  double k = static_cast<double>(static_cast<int32_t>((bits >> 52) & 0x7FF) - 0x3FE);
  if (f1 < kSqrt2Half) {
    k -= 1;
    f1 *= 2;
  }
  const double f = f1 - 1;
  const double s = f / (2 + f);
  const double s2 = s * s;
  const double s4 = s2 * s2;
  const double t1 = s2 * (kL1 + s4 * (kL3 + s4 * (kL5 + s4 * kL7)));
  const double t2 = s4 * (kL2 + s4 * (kL4 + s4 * kL6));
  const double r = t1 + t2;
  const double hfsq = 0.5 * f * f;
  return k * kLn2Hi - ((hfsq - (s * (hfsq + r) + k * kLn2Lo)) - f);
}

// math.Round: half away from zero, as std::round.
inline double go_round(double x) {
  return std::round(x);
}

}  // namespace tightpack
