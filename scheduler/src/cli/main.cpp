#include <iostream>

#include "cli/cli.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  return tightpack::cli::run(args, std::cin, std::cout, std::cerr);
}
