#include "tightpack/quantity.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>

#include "pow10_mod64.hpp"
#include "tightpack/go_int.hpp"

namespace tightpack {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

struct Suffix {
  int base = 10;  // 10 or 2 (BinarySI)
  int32_t exponent = 0;
};

// resource.quantitySuffixer.interpret
bool interpret_suffix(std::string_view s, Suffix& out) {
  static constexpr struct {
    const char* text;
    int base;
    int exponent;
  } kTable[] = {{"", 10, 0},   {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3},
                {"k", 10, 3},  {"M", 10, 6},  {"G", 10, 9},  {"T", 10, 12},
                {"P", 10, 15}, {"E", 10, 18}, {"Ki", 2, 10}, {"Mi", 2, 20},
                {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60}};
  for (const auto& e : kTable) {
    if (s == e.text) {
      out = {e.base, e.exponent};
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    std::string_view exp = s.substr(1);
    if (exp[0] == '+') exp.remove_prefix(1);  // strconv.ParseInt accepts a leading '+'
    int64_t value = 0;
    auto [end, ec] = std::from_chars(exp.data(), exp.data() + exp.size(), value);
    if (ec != std::errc() || end != exp.data() + exp.size() || exp.empty()) return false;
    // strconv.ParseInt(…, 10, 64), then int32(parsed): "1e4294967296" is 1.
    out = {10, static_cast<int32_t>(static_cast<uint32_t>(value))};
    return true;
  }
  return false;
}

// Go's int32 arithmetic, which wraps.
int32_t int32_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
int32_t int32_neg(int32_t a) {
  return static_cast<int32_t>(0u - static_cast<uint32_t>(a));
}

// n mod 2^64 for a decimal digit string: big.Int.Int64()'s low bits.
uint64_t low64(std::string_view digits) {
  uint64_t v = 0;
  for (char c : digits) v = v * 10 + static_cast<uint64_t>(c - '0');
  return v;
}

// Multiplies a decimal digit string in place by `factor` (≤ 2^31).
void multiply_decimal(std::string& digits, uint32_t factor) {
  uint64_t carry = 0;
  for (size_t i = digits.size(); i-- > 0;) {
    uint64_t d = static_cast<uint64_t>(digits[i] - '0') * factor + carry;
    digits[i] = static_cast<char>('0' + d % 10);
    carry = d / 10;
  }
  std::string prefix;
  while (carry > 0) {
    prefix.insert(prefix.begin(), static_cast<char>('0' + carry % 10));
    carry /= 10;
  }
  digits.insert(0, prefix);
}

}  // namespace

// Follows resource.parseQuantityString and ParseQuantity, including their
// leniencies ("1." and "." are accepted, "1K" is not).
Result<Quantity> Quantity::parse(std::string_view text) {
  auto fail = [&](const char* why) {
    return Error{"", "invalid quantity " + quote_value(text) + ": " + why};
  };
  if (text.empty()) return fail("empty");
  Quantity q;
  q.text_ = std::string(text);
  size_t pos = 0, end = text.size();
  if (text[0] == '-' || text[0] == '+') {
    q.negative_ = text[0] == '-';
    ++pos;
  }
  while (pos < end && text[pos] == '0') ++pos;
  size_t num_start = pos;
  while (pos < end && is_digit(text[pos])) ++pos;
  std::string_view num = text.substr(num_start, pos - num_start);
  std::string_view denom;
  if (pos < end && text[pos] == '.') {
    size_t d = ++pos;
    while (pos < end && is_digit(text[pos])) ++pos;
    denom = text.substr(d, pos - d);
  }
  size_t suffix_start = pos;
  while (pos < end && std::strchr("eEinumkKMGTP", text[pos]) != nullptr) ++pos;
  if (pos < end && (text[pos] == '-' || text[pos] == '+')) ++pos;
  while (pos < end && is_digit(text[pos])) ++pos;
  if (pos != end) return fail("not a number with an optional suffix");
  Suffix suffix;
  if (!interpret_suffix(text.substr(suffix_start), suffix)) {
    return fail("unknown suffix (expected n, u, m, k, M, G, T, P, E, Ki … Ei or an exponent)");
  }
  std::string digits = std::string(num) + std::string(denom);
  size_t first = digits.find_first_not_of('0');
  q.digits_ = first == std::string::npos ? "0" : digits.substr(first);
  if (q.digits_ == "0") q.negative_ = false;
  const auto denom_digits = static_cast<int32_t>(std::min<size_t>(denom.size(), INT32_MAX));
  if (suffix.base == 10) {
    // inf.Dec's scale: digits after the point minus the exponent, in int32.
    q.exp10_ = -static_cast<int64_t>(int32_add(denom_digits, int32_neg(suffix.exponent)));
  } else {
    q.exp10_ = -static_cast<int64_t>(denom_digits);
    q.exp2_ = suffix.exponent;
  }

  // ParseQuantity's fast path: an int64Amount when the digits are few enough
  // (num is "0" when only zeros or nothing precede the point).
  const size_t num_len = std::max<size_t>(num.size(), 1);
  int64_t precision = -1;
  int32_t scale = 0;
  if (suffix.base == 10) {
    scale = suffix.exponent;
    precision = 18 - static_cast<int64_t>(num_len + denom.size());
  } else if (denom.empty()) {
    precision = 15 - static_cast<int64_t>(num_len) - suffix.exponent * 3 / 10 - 1;
  }
  if (precision >= 0) {
    scale = int32_add(scale, int32_neg(denom_digits));
    if (scale >= -9) {
      int64_t value = 0;
      const std::string shifted =
          (num.empty() ? std::string("0") : std::string(num)) + std::string(denom);
      std::from_chars(shifted.data(), shifted.data() + shifted.size(), value);  // ≤ 18 digits
      int64_t result = value;
      const int64_t mantissa = suffix.base == 2 ? int64_t{1} << suffix.exponent : 1;
      if (!__builtin_mul_overflow(value, mantissa, &result)) {  // int64Multiply
        q.form_ = Form::kInt64;
        q.int_value_ = q.negative_ ? -result : result;
        q.int_scale_ = scale;
        return q;
      }
    }
  }
  // An inf.Dec, rounded up to nano units; a BinarySI amount beyond int64 is capped.
  // inf.Dec.SetString needs a digit where the fast path took none as zero ("e-33").
  if (num.empty() && denom.empty() &&
      text.substr(0, suffix_start).find('0') == std::string_view::npos) {
    return fail("unable to parse numeric part of quantity");
  }
  q.form_ = suffix.base == 2 && q.exceeds_int64() ? Form::kDecCapped : Form::kDec;
  return q;
}

std::string Quantity::floor_digits(int64_t e, bool& fraction) const {
  std::string n = digits_;
  for (int32_t left = exp2_; left > 0; left -= 30) multiply_decimal(n, 1u << std::min(left, 30));
  fraction = false;
  if (e >= 0) {
    n.append(static_cast<size_t>(e), '0');
    return n;
  }
  const auto chop = static_cast<size_t>(-e);
  if (chop >= n.size()) {
    fraction = n != "0";
    return "0";
  }
  fraction = n.find_first_not_of('0', n.size() - chop) != std::string::npos;
  n.resize(n.size() - chop);
  return n;
}

void Quantity::nano_units(std::string& digits, int64_t& exponent) const {
  const int64_t e = exp10_ + 9;
  if (e >= 0) {
    digits = digits_;
    for (int32_t left = exp2_; left > 0; left -= 30)
      multiply_decimal(digits, 1u << std::min(left, 30));
    exponent = e;
    return;
  }
  bool fraction = false;
  digits = floor_digits(e, fraction);
  exponent = 0;
  if (!fraction) return;
  // Plus one, carried through the trailing nines.
  size_t i = digits.size();
  while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
  if (i == 0) {
    digits.insert(digits.begin(), '1');
  } else {
    ++digits[i - 1];
  }
  if (digits.size() > 1 && digits[0] == '0') digits.erase(0, digits.find_first_not_of('0'));
}

bool Quantity::whole_in(int32_t exp10_shift) const {
  if (form_ != Form::kInt64 || int_value_ < 0) return false;
  constexpr int64_t kLimit = int64_t{1} << 53;
  int64_t v = int_value_;
  const int64_t k = static_cast<int64_t>(int_scale_) + exp10_shift;
  if (k >= 0) {
    for (int64_t i = 0; i < k; ++i) {
      if (v > kLimit / 10) return v == 0;
      v *= 10;
    }
    return v <= kLimit;
  }
  for (int64_t i = 0; i < -k; ++i) {
    if (v % 10 != 0) return false;
    v /= 10;
  }
  return v <= kLimit;
}

bool Quantity::exceeds_int64() const {
  if (is_zero()) return false;
  const auto len = static_cast<int64_t>(digits_.size());
  if (len - 1 + exp10_ >= 19) return true;   // at least 10^19
  if (len + exp10_ + 19 <= 0) return false;  // below 10^(len+exp10) × 2^60 < 1
  bool fraction = false;
  const std::string n = floor_digits(exp10_, fraction);
  static constexpr std::string_view kMax = "9223372036854775807";
  if (n.size() != kMax.size()) return n.size() > kMax.size();
  return n > kMax || (n == kMax && fraction);
}

uint64_t Quantity::ceil_low64(int32_t exp10_shift) const {
  if (is_zero()) return 0;
  const int64_t e = exp10_ + exp10_shift;
  if (e >= 0) {
    // An integer: every factor modulo 2^64.
    uint64_t v = low64(digits_) * pow10_mod64(e);
    return exp2_ >= 64 ? 0 : v << exp2_;
  }
  const auto len = static_cast<int64_t>(digits_.size());
  if (-e > len + 19) return 1;  // below one unit (2^60 < 10^19), which rounds up to one
  bool fraction = false;
  const std::string n = floor_digits(e, fraction);
  return low64(n) + (fraction ? 1 : 0);
}

std::optional<int64_t> Quantity::fast_scaled(std::string_view text, int32_t exp10_shift,
                                             bool* whole) {
  bool exact = true;  // no rounding up to a whole unit
  // The same grammar as parse(), on views; anything unusual goes the exact way.
  size_t pos = 0, end = text.size();
  if (end == 0) return std::nullopt;
  const bool negative = text[0] == '-';
  if (text[0] == '-' || text[0] == '+') ++pos;
  unsigned __int128 v = 0;
  int significant = 0;
  int64_t fraction_digits = 0;
  auto take_digits = [&](bool fraction) {
    while (pos < end && is_digit(text[pos])) {
      if (v != 0 || text[pos] != '0') {
        if (++significant > 18) return false;
        v = v * 10 + static_cast<unsigned>(text[pos] - '0');
      }
      if (fraction) ++fraction_digits;
      ++pos;
    }
    return true;
  };
  if (!take_digits(false)) return std::nullopt;
  const int64_t int_digits = std::max(significant, 1);  // parse()'s num, at least "0"
  if (pos < end && text[pos] == '.') {
    ++pos;
    if (!take_digits(true)) return std::nullopt;
  }
  // Without a digit ParseQuantity accepts some spellings ("e-5" is 0) and
  // refuses others ("e-33"): parse() knows which.
  if (text.find_first_of("0123456789") >= pos) return std::nullopt;
  Suffix suffix;
  if (!interpret_suffix(text.substr(pos), suffix)) return std::nullopt;
  // Exponents near int32's ends wrap in ParseQuantity's arithmetic.
  if (suffix.exponent > 1000 || suffix.exponent < -1000) return std::nullopt;
  // Whether ParseQuantity keeps it as an int64Amount, as parse() decides.
  const bool int64_form =
      suffix.base == 10
          ? 18 - int_digits - fraction_digits >= 0 && suffix.exponent - fraction_digits >= -9
          : fraction_digits == 0 && 15 - int_digits - suffix.exponent * 3 / 10 - 1 >= 0;
  if (v == 0) {
    if (whole) *whole = int64_form;
    return int64_t{0};
  }
  if (negative) return std::nullopt;  // callers reject negatives through parse()
  int64_t e = exp10_shift - fraction_digits + (suffix.base == 10 ? suffix.exponent : 0);
  if (suffix.base == 2) v <<= suffix.exponent;  // v < 10^18 < 2^60, exponent ≤ 60
  constexpr unsigned __int128 kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (e >= 0) {
    for (; e > 0; --e) {
      v *= 10;
      if (v > kMax) return std::nullopt;  // parse() names the value in the error
    }
  } else if (e < -38) {
    v = 1;  // below one unit, which rounds up to one
    exact = false;
  } else {
    unsigned __int128 p = 1;
    for (; e < 0; ++e) p *= 10;
    exact = v % p == 0;
    v = v / p + (exact ? 0 : 1);
  }
  if (v > kMax) return std::nullopt;
  // (A BinarySI amount that int64 cannot hold is not an int64Amount either,
  // but is beyond 2^53 anyway.)
  if (whole) *whole = int64_form && exact && v <= (unsigned __int128){1} << 53;
  return static_cast<int64_t>(v);
}

// int64Amount.AsScaledInt64(-exp10_shift), as ScaledValue calls it.
int64_t Quantity::int64_amount_scaled(int64_t v, int32_t int_scale, int32_t exp10_shift) {
  constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
  if (int_scale < -exp10_shift) {
    // negativeScaleInt64: divided by 10^k, rounded away from zero (k ≤ 12).
    const int32_t k = -exp10_shift - int_scale;
    int64_t p = 1;
    for (int32_t i = 0; i < k && p <= kMaxInt64 / 10; ++i) p *= 10;
    const int64_t result = v / p;
    if (v % p == 0) return result;
    return v > 0 ? result + 1 : result - 1;
  }
  // positiveScaleInt64: multiplied by 10^k. k is an int32 difference that
  // wraps; a negative k ("undefined" there) leaves v as it is. For k of 1, 2,
  // 3, 6 and 9 one multiplication returns its wrapped product even when it
  // overflows (the flag saying so is dropped by ScaledValue); any other k
  // multiplies by ten in a loop that gives 0 once it overflows.
  const int32_t k = int32_add(int_scale, exp10_shift);
  if (k <= 0 || v == 0) return v;
  if (v == std::numeric_limits<int64_t>::min()) return 0;
  if (k == 1 || k == 2 || k == 3 || k == 6 || k == 9) {
    int64_t p = 1;
    for (int32_t i = 0; i < k; ++i) p *= 10;
    return go_mul(v, p);
  }
  int64_t result = v;
  for (int32_t i = 0; i < k; ++i) {
    if (__builtin_mul_overflow(result, int64_t{10}, &result)) return 0;
  }
  return result;
}

// Quantity.ScaledValue(-exp10_shift): int64Amount.AsScaledInt64 for the int64
// form, scaledValue on the inf.Dec's big.Int for the others.
int64_t Quantity::scaled(int32_t exp10_shift) const {
  constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
  switch (form_) {
    case Form::kInt64:
      return int64_amount_scaled(int_value_, int_scale_, exp10_shift);
    case Form::kDecCapped: {
      // inf.Dec 2^63 - 1 at scale 0: Value() is it; MilliValue() multiplies it by
      // int64(math.Pow10(3)), wrapping.
      const int64_t v = negative_ ? -kMaxInt64 : kMaxInt64;
      return exp10_shift == 0 ? v : go_mul(v, 1000);
    }
    case Form::kDec:
      break;
  }
  // The inf.Dec holds U = ceil(|q| × 10^9) at scale 9; scaledValue divides by
  // 10^(9 - shift) and adds one for a remainder. For a non-negative amount that
  // is ceil(q × 10^shift) modulo 2^64, whichever of its paths it takes.
  if (!negative_) return static_cast<int64_t>(ceil_low64(exp10_shift));
  // A negative one takes the int64 path: -U's low bits divided (truncating), plus one.
  const auto v = static_cast<int64_t>(0 - ceil_low64(9));
  const int64_t p = exp10_shift == 0 ? 1000000000 : 1000000;
  return v / p + (v % p != 0 ? 1 : 0);
}

namespace {

std::string with_suffix(int64_t value, const char* suffix) {
  return std::to_string(value) + suffix;
}

}  // namespace

std::string format_decimal(int64_t value) {
  static constexpr const char* kSuffix[] = {"", "k", "M", "G", "T", "P", "E"};
  int step = 0;
  while (value != 0 && value % 1000 == 0 && step < 6) {
    value /= 1000;
    ++step;
  }
  return with_suffix(value, kSuffix[step]);
}

std::string format_milli(int64_t millis) {
  if (millis % 1000 == 0) return format_decimal(millis / 1000);
  return with_suffix(millis, "m");
}

std::string format_bytes(int64_t bytes) {
  static constexpr const char* kSuffix[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  // CanonicalizeBytes prints BinarySI amounts in (-1024, 1024) as DecimalSI:
  // 1000 bytes is "1k".
  if (bytes > -1024 && bytes < 1024) return format_decimal(bytes);
  int step = 0;
  while (bytes % 1024 == 0 && step < 6) {
    bytes /= 1024;
    ++step;
  }
  return with_suffix(bytes, kSuffix[step]);
}

std::string format_resource(std::string_view resource, int64_t amount) {
  if (resource == "cpu") return format_milli(amount);
  if (resource == "memory" || resource == "ephemeral-storage") return format_bytes(amount);
  return format_decimal(amount);
}

}  // namespace tightpack
