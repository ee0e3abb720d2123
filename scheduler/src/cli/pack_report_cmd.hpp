// `tightpack pack-report`: how many nodes a sequence of workloads leaves busy
// under each scheduler profile, next to the lower bound.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tightpack::cli {

int pack_report(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
                std::ostream& err);

extern const char* const kPackReportHelp;

}  // namespace tightpack::cli
