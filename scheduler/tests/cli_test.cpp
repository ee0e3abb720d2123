#include "cli.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace tightpack::cli {
namespace {

struct CliRun {
  int code;
  std::string out, err;
};

CliRun run_cli(std::vector<std::string> args, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  int code = run(args, in, out, err);
  return {code, out.str(), err.str()};
}

TEST(Cli, HelpForEveryCommand) {
  EXPECT_EQ(run_cli({"--help"}).code, kOk);
  for (const char* cmd : {"replay", "predict"}) {
    CliRun r = run_cli({cmd, "--help"});
    EXPECT_EQ(r.code, kOk) << cmd;
    EXPECT_NE(r.out.find(std::string("tightpack ") + cmd), std::string::npos) << r.out;
  }
}

TEST(Cli, UnknownCommandIsAUsageError) {
  CliRun r = run_cli({"frobnicate"});
  EXPECT_EQ(r.code, kUsage);
  EXPECT_NE(r.err.find("unknown command \"frobnicate\""), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tightpack::cli
