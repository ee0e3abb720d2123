// `tightpack forecast`: which nodes cluster-autoscaler would remove from a
// cluster, and what keeps the others.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tightpack::cli {

int forecast(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
             std::ostream& err);

extern const char* const kForecastHelp;

}  // namespace tightpack::cli
