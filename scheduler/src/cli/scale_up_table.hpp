// The scale-up answer of `tightpack predict --pools FILE` as a table below
// the placements (the JSON form is core's encode_scale_up).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "tightpack/what_if/what_if.hpp"

namespace tightpack::cli {

void print_scale_up(std::ostream& out, const ScaleUpAnswer& answer);

// "~3 min", "~45 s".
std::string wait_text(int64_t seconds);

}  // namespace tightpack::cli
