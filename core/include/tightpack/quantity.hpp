// Kubernetes resource.Quantity: exact parsing, its integer values as Go
// computes them, and canonical printing.
//
// A quantity is kept as sign × decimal digits × 10^exp10 × 2^exp2, exactly as
// written, beside the form ParseQuantity gives it (an int64Amount, an inf.Dec
// rounded up to nano units, or that capped at 2^63 - 1 for BinarySI), because
// the form decides what Value() and MilliValue() return once the amount leaves
// int64's range: kube-scheduler counts a request of 1e30 bytes as 0 (an
// int64Amount whose scaling overflows), one of 9223372036854775808 as
// -9223372036854775808 (an inf.Dec's low 64 bits), one of 9Ei as 2^63 - 1.
// In range, both are ceilings: ceil(q) and ceil(q × 1000), away from zero.
// No floating point anywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tightpack/error.hpp"

namespace tightpack {

class Quantity {
 public:
  // Parses the Kubernetes text form: [+-]digits[.digits][suffix], suffix one of
  // n u m "" k M G T P E, Ki Mi Gi Ti Pi Ei, or e/E followed by a signed exponent.
  static Result<Quantity> parse(std::string_view text);

  // Quantity.Value() and Quantity.MilliValue() of k8s.io/apimachinery v0.37.2
  // (and v0.30.14, the same code), out-of-range and negative amounts included.
  int64_t value() const { return scaled(0); }
  int64_t milli_value() const { return scaled(3); }

  // parse(text)->value() (shift 0) or ->milli_value() (shift 3) for the common
  // spellings, computed without building strings; nullopt for anything else
  // (negatives, more than 18 significant digits, amounts beyond int64, extreme
  // exponents, bad syntax), for which parse() gives the answer or the error.
  // `whole`, when given, is set as whole_in() would say of the parsed quantity.
  static std::optional<int64_t> fast_scaled(std::string_view text, int32_t exp10_shift,
                                            bool* whole = nullptr);

  bool negative() const { return negative_; }
  bool is_zero() const { return digits_ == "0"; }
  const std::string& text() const { return text_; }

  // Whether q × 10^exp10_shift is a whole number of at most 2^53, kept as an
  // int64Amount: the amounts whose sums in int64 are PodRequests' sums.
  bool whole_in(int32_t exp10_shift) const;

  bool operator==(const Quantity&) const = default;

 private:
  friend class GoQuantity;  // reads the form ParseQuantity gave the amount

  // How ParseQuantity holds the amount.
  enum class Form : uint8_t {
    kInt64,      // int64Amount{int_value_, int_scale_}
    kDec,        // inf.Dec, rounded up to nano units
    kDecCapped,  // inf.Dec 2^63 - 1: a BinarySI amount above it
  };

  int64_t scaled(int32_t exp10_shift) const;
  static int64_t int64_amount_scaled(int64_t value, int32_t scale, int32_t exp10_shift);
  // ceil(|q| × 10^exp10_shift) modulo 2^64, as an inf.Dec's big.Int.Int64() gives it.
  uint64_t ceil_low64(int32_t exp10_shift) const;
  bool exceeds_int64() const;  // |q| > 2^63 - 1
  // The integer part of |q| × 10^e as decimal digits, and whether a fraction
  // was cut off; callers bound e so that the digits stay few.
  std::string floor_digits(int64_t e, bool& fraction) const;
  // ceil(|q| × 10^9) as digits × 10^exponent, the zeros not spelled out: the
  // unscaled integer of ParseQuantity's inf.Dec, rounded up to nano units.
  void nano_units(std::string& digits, int64_t& exponent) const;

  std::string text_;
  bool negative_ = false;
  std::string digits_ = "0";  // no leading zeros; "0" for zero
  int64_t exp10_ = 0;
  int32_t exp2_ = 0;
  Form form_ = Form::kInt64;
  int64_t int_value_ = 0;
  int32_t int_scale_ = 0;
};

// Canonical Kubernetes spellings of integer amounts, as Quantity.String() prints
// them: "1500m"/"2" for millicores; "1Gi", "1536Mi", "1G" or "123" for bytes.
std::string format_milli(int64_t millis);
std::string format_bytes(int64_t bytes);
std::string format_decimal(int64_t value);  // DecimalSI: 1k, 1500, 2M
// An amount of `resource` in the scheduler's units as kubectl prints it:
// millicores for cpu, bytes for memory and ephemeral-storage, a count else.
std::string format_resource(std::string_view resource, int64_t amount);

}  // namespace tightpack
