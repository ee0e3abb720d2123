#include "autoscale_cmd.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "tightpack/autoscaler.hpp"

namespace tightpack::cli {

const char* const kAutoscaleHelp = R"(Usage: tightpack autoscale [--jsonl] [FILE|-]

Reads an autoscaler scenario (nodes, pods, nodeGroups, pending, expander, …; or a
corpus line with "scenario") and prints what cluster-autoscaler 1.26 decides, as
one JSON document: {"scaleUp": [{"loop", "nodeGroup", "delta", "estimated",
"pods"}], "unhelped", "noScaleUp", "loops", "lastResult", "scaleDown": {"unneeded",
"removable", "blocked", "utilization"}}. A scenario that cannot be decoded prints
{"error": "…"}.

  --jsonl   one scenario per input line, one result per output line, in order
  FILE      input file; '-' or nothing reads standard input
)";

namespace {

bool read_all(const std::string& path, std::istream& in, std::string& text, std::string& error) {
  std::ostringstream buf;
  if (path.empty() || path == "-") {
    buf << in.rdbuf();
  } else {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
      error = "cannot read " + path + ": " + std::strerror(errno);
      return false;
    }
    buf << f.rdbuf();
  }
  text = buf.str();
  return true;
}

}  // namespace

int autoscale(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
              std::ostream& err) {
  bool jsonl = false, help = false;
  std::vector<std::string> positional;
  for (const std::string& a : argv) {
    if (a == "--jsonl") {
      jsonl = true;
    } else if (a == "--help") {
      help = true;
    } else if (a.size() > 2 && a.rfind("--", 0) == 0) {
      err << "tightpack autoscale: unknown option " << a << "\n" << kAutoscaleHelp;
      return kUsage;
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() > 1) {
    err << "tightpack autoscale: at most one FILE\n" << kAutoscaleHelp;
    return kUsage;
  }
  if (help) {
    out << kAutoscaleHelp;
    return kOk;
  }
  std::string path = positional.empty() ? "-" : positional[0];
  std::string text, error;
  if (!read_all(path, in, text, error)) {
    err << "tightpack autoscale: " << error << "\n";
    return kInputError;
  }
  if (!jsonl) {
    out << autoscaler::autoscale_text(text) << "\n";
    return kOk;
  }
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos)
      out << autoscaler::autoscale_text(line) << "\n";
    start = end + 1;
  }
  return kOk;
}

}  // namespace tightpack::cli
