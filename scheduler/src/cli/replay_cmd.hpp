// `tightpack replay`: kube-scheduler's decisions on scenarios in the shared
// corpus format (the conformance interface).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tightpack::cli {

int replay(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
           std::ostream& err);

extern const char* const kReplayHelp;

}  // namespace tightpack::cli
