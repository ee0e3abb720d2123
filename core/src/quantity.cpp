#include "tightpack/quantity.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>

namespace tightpack {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

struct Suffix {
  int base = 10;  // 10 or 2
  int64_t exponent = 0;
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
    int32_t value = 0;                        // Kubernetes keeps the exponent in an int32
    auto [end, ec] = std::from_chars(exp.data(), exp.data() + exp.size(), value);
    if (ec != std::errc() || end != exp.data() + exp.size() || exp.empty()) return false;
    out = {10, value};
    return true;
  }
  return false;
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
  q.exp10_ = -static_cast<int64_t>(denom.size());
  if (suffix.base == 10) {
    q.exp10_ += suffix.exponent;
  } else {
    q.exp2_ = static_cast<int32_t>(suffix.exponent);
  }
  return q;
}

std::optional<int64_t> Quantity::fast_scaled(std::string_view text, int32_t exp10_shift) {
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
  if (pos < end && text[pos] == '.') {
    ++pos;
    if (!take_digits(true)) return std::nullopt;
  }
  Suffix suffix;
  if (!interpret_suffix(text.substr(pos), suffix)) return std::nullopt;
  if (v == 0) return int64_t{0};
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
  } else {
    unsigned __int128 p = 1;
    for (; e < 0; ++e) p *= 10;
    v = v / p + (v % p != 0 ? 1 : 0);
  }
  if (v > kMax) return std::nullopt;
  return static_cast<int64_t>(v);
}

Result<int64_t> Quantity::scaled(int32_t exp10_shift) const {
  if (is_zero()) return int64_t{0};
  auto too_large = [&] {
    return Error{"", "quantity " + quote_value(text_) + " is too large for a 64-bit integer"};
  };
  const int64_t e = exp10_ + exp10_shift;
  const auto len = static_cast<int64_t>(digits_.size());
  // |value| ≥ 10^(len-1+e): more than 19 integer digits can never fit.
  if (len - 1 + e > 19) return too_large();
  // |value| < 10^(len+e) × 2^60 < 10^(len+e+19): below one unit, which rounds up to one.
  if (len + e + 19 <= 0) return int64_t{negative_ ? -1 : 1};
  std::string n = digits_;
  for (int32_t left = exp2_; left > 0; left -= 30) multiply_decimal(n, 1u << std::min(left, 30));
  bool round_up = false;
  if (e >= 0) {
    n.append(static_cast<size_t>(e), '0');
  } else {
    auto chop = static_cast<size_t>(-e);
    if (chop >= n.size()) {
      round_up = true;
      n = "0";
    } else {
      round_up = n.find_first_not_of('0', n.size() - chop) != std::string::npos;
      n.resize(n.size() - chop);
    }
  }
  uint64_t magnitude = 0;
  auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), magnitude);
  if (ec != std::errc()) return too_large();
  // Check before rounding up: the integer part may be exactly UINT64_MAX
  // ("18446744073709551615.5"), and ++ would wrap it to 0.
  if (magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - (round_up ? 1 : 0)) {
    return too_large();
  }
  if (round_up) ++magnitude;
  auto v = static_cast<int64_t>(magnitude);
  return negative_ ? -v : v;
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
