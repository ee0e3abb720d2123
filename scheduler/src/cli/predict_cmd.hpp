// `tightpack predict`: where N copies of a pod go in a cluster and, with
// NodePools, which pools cluster-autoscaler grows for the rest.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tightpack::cli {

int predict(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
            std::ostream& err);

extern const char* const kPredictHelp;

}  // namespace tightpack::cli
