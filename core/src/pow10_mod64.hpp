// 10^n modulo 2^64: the low bits Go's wrapping int64 arithmetic and
// big.Int.Int64() keep of a power of ten, whatever its size.
#pragma once

#include <cstdint>

namespace tightpack {

constexpr uint64_t pow10_mod64(int64_t exponent) {
  uint64_t result = 1, base = 10;
  for (; exponent > 0; exponent >>= 1) {
    if (exponent & 1) result *= base;
    base *= base;
  }
  return result;
}

}  // namespace tightpack
