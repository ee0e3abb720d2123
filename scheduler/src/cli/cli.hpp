// The `tightpack` command line: subcommands over core, with exit codes and
// messages a user can act on.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tightpack::cli {

enum ExitCode : int {
  kOk = 0,
  kInputError = 1,     // a file could not be read or decoded
  kUsage = 2,          // wrong arguments
  kUnschedulable = 3,  // predict: some replicas fit nowhere
};

int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err);

}  // namespace tightpack::cli
