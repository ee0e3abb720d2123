// `tightpack admit`: a pod as the API server would store it, after defaulting
// and the admission plugins scheduling depends on.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tightpack::cli {

int admit(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
          std::ostream& err);

extern const char* const kAdmitHelp;

}  // namespace tightpack::cli
