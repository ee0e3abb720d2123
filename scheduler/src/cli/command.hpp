// A subcommand of `tightpack`, as the one command table (cli.cpp) lists it:
// what `tightpack --help` shows of it, its own help, and what runs it.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tightpack::cli {

struct Command {
  const char* name;
  const char* synopsis;  // its lines under "Usage:" in `tightpack --help`
  const char* summary;   // its line under "Commands:"
  const char* help;      // `tightpack help NAME`, `tightpack NAME --help`
  int (*run)(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
             std::ostream& err);
};

}  // namespace tightpack::cli
