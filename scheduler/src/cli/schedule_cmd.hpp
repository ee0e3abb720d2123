// `tightpack schedule`: the in-cluster scheduler (docs/scheduler.md).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tightpack::cli {

extern const char* const kScheduleHelp;

// Runs until SIGTERM or SIGINT (exit 0), or until leadership is lost (exit 1).
int schedule(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
             std::ostream& err);

}  // namespace tightpack::cli
