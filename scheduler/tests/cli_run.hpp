// Runs the `tightpack` command line in-process, as the CLI tests do.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace tightpack::cli::testing {

struct CliRun {
  int code;
  std::string out, err;
};

inline CliRun run_cli(std::vector<std::string> args, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  int code = run(args, in, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace tightpack::cli::testing
