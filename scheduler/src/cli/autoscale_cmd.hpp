// `tightpack autoscale`: cluster-autoscaler's decisions on corpus scenarios,
// with the input and output conventions of `tightpack replay`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tightpack::cli {

int autoscale(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
              std::ostream& err);

extern const char* const kAutoscaleHelp;

}  // namespace tightpack::cli
