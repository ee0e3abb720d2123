// A resource.Quantity as PodRequests adds and compares it.
//
// kube-scheduler sums a pod's requests as Quantities (Quantity.Add, and
// Quantity.Cmp for init containers' maximum) and converts the sum once
// (Value, MilliValue). Summing converted amounts instead differs where a
// container's amount is not a whole unit (two containers of 0.5 bytes are 1
// byte to kube-scheduler, not 2) or where amounts leave int64's range (an
// overflowing addition turns the sum into an inf.Dec, whose Value keeps
// different bits). GoQuantity follows apimachinery v0.37.2's arithmetic for
// the non-negative amounts requests are: an int64Amount while additions fit,
// an inf.Dec after, with exact decimals that never spell out an exponent's
// zeros (1e2000000000 is one digit).
#pragma once

#include <cstdint>
#include <map>

#include "tightpack/quantity.hpp"

namespace tightpack {

class GoQuantity {
 public:
  GoQuantity() = default;
  // The form ParseQuantity gave `q` (non-negative).
  static GoQuantity of(const Quantity& q);
  // An int64Amount, e.g. resource.NewMilliQuantity(100) is {100, -3}.
  static GoQuantity int64_amount(int64_t value, int32_t scale);

  void add(const GoQuantity& y);  // Quantity.Add
  // Quantity.Cmp(y): -1, 0 or 1. Where either is an inf.Dec, Cmp's AsDec turns
  // *this into one too, and maxResourceList keeps that copy: so does this.
  int compare(const GoQuantity& y);
  // Quantity.ScaledValue(-exp10_shift): Value() for 0, MilliValue() for 3.
  int64_t scaled(int32_t exp10_shift) const;

 private:
  // A non-negative decimal, exactly: base-10^9 limbs, key k weighing 10^(9k).
  using Decimal = std::map<int64_t, uint32_t>;
  static void add_digits(Decimal& d, std::string_view digits, int64_t exponent);
  static void add_decimal(Decimal& d, const Decimal& other);
  static int compare(const Decimal& a, const Decimal& b);
  // floor(d × 10^k) modulo 2^64, and whether a fraction was cut off.
  static uint64_t floor_low64(const Decimal& d, int64_t k, bool& fraction);
  Decimal value_decimal() const;
  void to_dec();  // Quantity.ToDec

  bool dec_ = false;
  int64_t int_value_ = 0;  // int64Amount{value, scale}
  int32_t int_scale_ = 0;
  Decimal dec_value_;      // inf.Dec: its value exactly,
  int32_t dec_scale_ = 0;  // and its scale (the unscaled integer is value × 10^scale)
};

}  // namespace tightpack
