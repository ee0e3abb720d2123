// Quantity::parse on arbitrary text. Parsing may refuse; a parsed quantity must
// convert without UB, and its conversions must agree with the rounding rule of
// Quantity.Value() and MilliValue(): ceil(q) and ceil(1000 q), away from zero.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tightpack/quantity.hpp"

namespace {

using tightpack::Quantity;

void check(bool ok) {
  if (!ok) std::abort();
}

// ceil(|m| / 1000) with m's sign: ceil(ceil(1000 x) / 1000) == ceil(x) for
// any real x > 0, so value() follows from milli_value() exactly.
int64_t milli_to_value(int64_t m) {
  int64_t whole = m / 1000;  // truncates toward zero
  if (m % 1000 != 0) whole += m > 0 ? 1 : -1;
  return whole;
}

int sign(int64_t x) {
  return (x > 0) - (x < 0);
}
int sign_of(const Quantity& q) {
  return q.is_zero() ? 0 : q.negative() ? -1 : 1;
}

void check_conversions(const Quantity& q) {
  auto v = q.value();
  auto m = q.milli_value();
  // A milli value that fits bounds the value (|v| <= |m|), so it fits too.
  if (m.ok()) check(v.ok());
  // Rounding away from zero never turns a non-zero amount into 0 or flips its sign.
  if (v.ok()) check(sign(*v) == sign_of(q));
  if (m.ok()) check(sign(*m) == sign_of(q));
  if (v.ok() && m.ok()) {
    check(*v == milli_to_value(*m));
    // Implied by the line above; spelled out as the bound the brief asks for:
    // 1000 v - 999 <= m <= 1000 v for positive amounts.
    // In 128 bits: 1000 v may exceed int64 when m is near its maximum.
    const __int128 thousand_v = static_cast<__int128>(*v) * 1000;
    if (*v > 0) check(*m <= thousand_v && *m >= thousand_v - 999);
  }
}

// The canonical spellings parse back to the same integer.
void check_round_trip(const Quantity& q) {
  if (auto m = q.milli_value(); m.ok()) {
    auto back = Quantity::parse(tightpack::format_milli(*m));
    check(back.ok() && back->milli_value().ok() && *back->milli_value() == *m);
  }
  if (auto v = q.value(); v.ok()) {
    for (const std::string& text : {tightpack::format_bytes(*v), tightpack::format_decimal(*v)}) {
      auto back = Quantity::parse(text);
      check(back.ok() && back->value().ok() && *back->value() == *v);
    }
  }
}

// Quantity keeps sign and magnitude apart, so "-x" converts to exactly minus
// what "x" converts to, and "+x" to the same.
void check_sign_symmetry(std::string_view text, const Quantity& q) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return;
  auto neg = Quantity::parse("-" + std::string(text));
  auto pos = Quantity::parse("+" + std::string(text));
  check(neg.ok() && pos.ok());
  for (int milli = 0; milli < 2; ++milli) {
    auto a = milli ? q.milli_value() : q.value();
    auto n = milli ? neg->milli_value() : neg->value();
    auto p = milli ? pos->milli_value() : pos->value();
    check(a.ok() == n.ok() && a.ok() == p.ok());
    if (a.ok()) check(*n == -*a && *p == *a);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto q = Quantity::parse(text);
  if (!q.ok()) {
    check(!q.error().message.empty());
    return 0;
  }
  check(q->text() == text);
  check_conversions(*q);
  check_round_trip(*q);
  check_sign_symmetry(text, *q);
  return 0;
}
