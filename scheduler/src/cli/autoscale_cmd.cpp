#include "cli/commands.hpp"
#include "cli/document_command.hpp"
#include "tightpack/autoscaler/autoscaler.hpp"

namespace tightpack::cli {

const char* const kAutoscaleHelp = R"(Usage: tightpack autoscale [--jsonl] [FILE|-]

Reads an autoscaler scenario (nodes, pods, nodeGroups, pending, expander, …; or a
corpus line with "scenario") and prints what cluster-autoscaler decides, as
one JSON document: {"scaleUp": [{"loop", "nodeGroup", "delta", "estimated",
"pods"}], "unhelped", "noScaleUp", "loops", "lastResult", "scaleDown": {"unneeded",
"removable", "blocked", "utilization"}}. A scenario that cannot be decoded prints
{"error": "…"}.

  --jsonl   one scenario per input line, one result per output line, in order
  FILE      input file; '-' or nothing reads standard input
)";

int autoscale(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
              std::ostream& err) {
  return run_document_command({"autoscale", kAutoscaleHelp, autoscaler::autoscale_text}, argv, in,
                              out, err);
}

}  // namespace tightpack::cli
