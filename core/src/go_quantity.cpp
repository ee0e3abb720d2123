#include "tightpack/go_quantity.hpp"

#include <limits>
#include <string>

#include "pow10_mod64.hpp"
#include "tightpack/go_int.hpp"

namespace tightpack {
namespace {

constexpr uint32_t kLimb = 1000000000;  // 10^9

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);
}

uint32_t pow10_small(int64_t k) {  // 0 ≤ k ≤ 9
  uint32_t p = 1;
  for (int64_t i = 0; i < k; ++i) p *= 10;
  return p;
}

// Scale is an int32 in Go; its arithmetic wraps.
int32_t scale_sub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}

// positiveScaleInt64 as int64Amount.Add uses it: nullopt where it says false.
// A negative scale is "undefined" there: its loop does not run.
std::optional<int64_t> positive_scale(int64_t base, int32_t scale) {
  int64_t v = base;
  for (int32_t i = 0; i < scale; ++i) {
    if (__builtin_mul_overflow(v, int64_t{10}, &v)) return std::nullopt;
  }
  return v;
}

}  // namespace

GoQuantity GoQuantity::of(const Quantity& q) {
  GoQuantity g;
  switch (q.form_) {
    case Quantity::Form::kInt64:
      g.int_value_ = q.int_value_;
      g.int_scale_ = q.int_scale_;
      return g;
    case Quantity::Form::kDecCapped:
      g.dec_ = true;
      add_digits(g.dec_value_, "9223372036854775807", 0);
      g.dec_scale_ = 0;
      return g;
    case Quantity::Form::kDec:
      break;
  }
  g.dec_ = true;
  if (q.is_zero()) {
    // Zero is not rounded: the inf.Dec keeps the scale it was written with.
    g.dec_scale_ = static_cast<int32_t>(-q.exp10_);
    return g;
  }
  std::string digits;
  int64_t exponent = 0;
  q.nano_units(digits, exponent);
  add_digits(g.dec_value_, digits, exponent - 9);
  g.dec_scale_ = 9;
  return g;
}

GoQuantity GoQuantity::int64_amount(int64_t value, int32_t scale) {
  GoQuantity g;
  g.int_value_ = value;
  g.int_scale_ = scale;
  return g;
}

void GoQuantity::add_digits(Decimal& d, std::string_view digits, int64_t exponent) {
  // Digit by digit, from the last: each lands in its limb and carries upwards.
  for (size_t i = digits.size(); i-- > 0;) {
    const auto digit = static_cast<uint32_t>(digits[i] - '0');
    if (digit == 0) continue;
    const int64_t at = exponent + static_cast<int64_t>(digits.size() - 1 - i);
    int64_t block = floor_div(at, 9);
    uint64_t carry = static_cast<uint64_t>(digit) * pow10_small(at - block * 9);
    while (carry != 0) {
      uint64_t sum = d[block] + carry;
      d[block] = static_cast<uint32_t>(sum % kLimb);
      carry = sum / kLimb;
      ++block;
    }
  }
}

void GoQuantity::add_decimal(Decimal& d, const Decimal& other) {
  for (const auto& [block, limb] : other) {
    int64_t b = block;
    uint64_t carry = limb;
    while (carry != 0) {
      uint64_t sum = d[b] + carry;
      d[b] = static_cast<uint32_t>(sum % kLimb);
      carry = sum / kLimb;
      ++b;
    }
  }
}

int GoQuantity::compare(const Decimal& a, const Decimal& b) {
  auto ia = a.rbegin(), ib = b.rbegin();
  auto skip_zeros = [](auto& it, auto end) {
    while (it != end && it->second == 0) ++it;
  };
  for (;;) {
    skip_zeros(ia, a.rend());
    skip_zeros(ib, b.rend());
    if (ia == a.rend() || ib == b.rend()) {
      return (ia != a.rend()) - (ib != b.rend());
    }
    if (ia->first != ib->first) return ia->first > ib->first ? 1 : -1;
    if (ia->second != ib->second) return ia->second > ib->second ? 1 : -1;
    ++ia;
    ++ib;
  }
}

uint64_t GoQuantity::floor_low64(const Decimal& d, int64_t k, bool& fraction) {
  uint64_t sum = 0;
  fraction = false;
  for (const auto& [block, limb] : d) {
    if (limb == 0) continue;
    const int64_t at = block * 9 + k;  // the limb's weight is 10^at
    if (at >= 0) {
      sum += static_cast<uint64_t>(limb) * pow10_mod64(at);
    } else if (at > -9) {
      const uint32_t p = pow10_small(-at);
      sum += limb / p;
      fraction = fraction || limb % p != 0;
    } else {
      fraction = true;
    }
  }
  return sum;
}

GoQuantity::Decimal GoQuantity::value_decimal() const {
  if (dec_) return dec_value_;
  Decimal d;
  // Requests are never negative; a negative amount is refused before this.
  add_digits(d, std::to_string(int_value_ < 0 ? 0 : int_value_), int_scale_);
  return d;
}

void GoQuantity::to_dec() {
  if (dec_) return;
  dec_value_ = value_decimal();
  dec_scale_ = scale_sub(0, int_scale_);  // int64Amount.AsDec: scale -a.scale
  dec_ = true;
  int_value_ = 0;
  int_scale_ = 0;
}

// int64Amount.Add, then inf.Dec.Add when it refuses (overflow): the scale of
// a sum of inf.Decs is the larger one.
void GoQuantity::add(const GoQuantity& y) {
  if (!dec_ && !y.dec_) {
    if (y.int_value_ == 0) return;
    if (int_value_ == 0) {
      int_value_ = y.int_value_;
      int_scale_ = y.int_scale_;
      return;
    }
    std::optional<int64_t> sum;
    int32_t scale = int_scale_;
    if (int_scale_ == y.int_scale_) {
      int64_t c = 0;
      if (!__builtin_add_overflow(int_value_, y.int_value_, &c)) sum = c;
    } else if (int_scale_ > y.int_scale_) {
      if (auto a = positive_scale(int_value_, scale_sub(int_scale_, y.int_scale_))) {
        int64_t c = 0;
        if (!__builtin_add_overflow(*a, y.int_value_, &c)) sum = c;
      }
      scale = y.int_scale_;
    } else {
      if (auto b = positive_scale(y.int_value_, scale_sub(y.int_scale_, int_scale_))) {
        int64_t c = 0;
        if (!__builtin_add_overflow(int_value_, *b, &c)) sum = c;
      }
    }
    if (sum) {
      int_value_ = *sum;
      int_scale_ = scale;
      return;
    }
  }
  GoQuantity other = y;
  other.to_dec();
  to_dec();
  add_decimal(dec_value_, other.dec_value_);
  dec_scale_ = std::max(dec_scale_, other.dec_scale_);
}

int GoQuantity::compare(const GoQuantity& y) {
  // int64Amount.Cmp is exact for non-negative amounts (it falls back to
  // inf.Dec where scaling would not be); Quantity.Cmp with an inf.Dec on
  // either side converts both copies first.
  if (dec_ || y.dec_) to_dec();
  return compare(value_decimal(), y.value_decimal());
}

int64_t GoQuantity::scaled(int32_t exp10_shift) const {
  if (!dec_) {
    return Quantity::int64_amount_scaled(int_value_, int_scale_, exp10_shift);
  }
  // scaledValue(unscaled, scale, newScale), unscaled = value × 10^scale.
  const int64_t dif = static_cast<int64_t>(dec_scale_) - exp10_shift;
  bool fraction = false;
  if (dif == 0) return static_cast<int64_t>(floor_low64(dec_value_, dec_scale_, fraction));
  if (dif < 0) {
    // unscaled.Int64() * int64(math.Pow10(-dif)): past 10^18 the float is out
    // of int64's range, which amd64 turns into math.MinInt64.
    const uint64_t low = floor_low64(dec_value_, dec_scale_, fraction);
    const int64_t factor =
        -dif <= 18 ? static_cast<int64_t>(pow10_mod64(-dif)) : std::numeric_limits<int64_t>::min();
    return go_mul(static_cast<int64_t>(low), factor);
  }
  // Divided by 10^dif, one added for a remainder: floor(value × 10^shift) + 1.
  const uint64_t low = floor_low64(dec_value_, exp10_shift, fraction);
  return go_add(static_cast<int64_t>(low), fraction ? 1 : 0);
}

}  // namespace tightpack
