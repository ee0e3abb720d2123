// Command-line options as every `tightpack` subcommand takes them:
// --name VALUE or --name=VALUE, bare --flags, positional arguments.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tightpack::cli {

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;
  std::vector<std::string> flags;
};

// False with `error` set on an unknown option or a missing value.
bool parse_args(const std::vector<std::string>& in, const std::vector<std::string>& with_value,
                const std::vector<std::string>& flags, Args& out, std::string& error);
bool has_flag(const Args& a, const std::string& f);

}  // namespace tightpack::cli
