// Kubernetes resource.Quantity: exact parsing and canonical printing.
//
// A quantity is kept as sign × decimal digits × 10^exp10 × 2^exp2, exactly as
// written; conversion to the integer units the scheduler uses (millicores for
// cpu, bytes or counts for everything else) rounds up, away from zero, as
// Quantity.MilliValue() and Quantity.Value() do. No floating point anywhere.
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

  // ceil(q) and ceil(q × 1000), away from zero; an error when the result does
  // not fit in int64.
  Result<int64_t> value() const { return scaled(0); }
  Result<int64_t> milli_value() const { return scaled(3); }

  // parse(text)->value() (shift 0) or ->milli_value() (shift 3) for the common
  // spellings, computed without building strings; nullopt for anything else
  // (negatives, more than 18 significant digits, overflow, bad syntax), for
  // which parse() gives the exact answer or the error.
  static std::optional<int64_t> fast_scaled(std::string_view text, int32_t exp10_shift);

  bool negative() const { return negative_; }
  bool is_zero() const { return digits_ == "0"; }
  const std::string& text() const { return text_; }

 private:
  Result<int64_t> scaled(int32_t exp10_shift) const;

  std::string text_;
  bool negative_ = false;
  std::string digits_ = "0";  // no leading zeros; "0" for zero
  int64_t exp10_ = 0;
  int32_t exp2_ = 0;
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
