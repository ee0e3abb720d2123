#include "cli/commands.hpp"
#include "cli/document_command.hpp"
#include "tightpack/packing/moves.hpp"

namespace tightpack::cli {

const char* const kMovesHelp = R"(Usage: tightpack moves [--jsonl] [FILE|-]

Which nodes to empty by moving their Dask workers elsewhere first (make
before break, docs/packing.md), planned as the in-cluster scheduler plans
them: on an autoscaler scenario (the format `tightpack autoscale` reads, or a
corpus line with "scenario"), nodes of a node group whose only pods besides
DaemonSet and mirror pods are movable Dask workers asking for at most three
quarters of the node's cpu, fewest workers first; each worker's replacement
placed by the profile on another node, never on one being emptied, no node
added; every emptied node confirmed unneeded by cluster-autoscaler's
scale-down once the moves are made. Nothing is planned while a pod is
pending. An optional top-level "moves" object sets
{"profile": "tightpack", "maxMoves": 4, "maxUsePercent": 75,
 "workers": "opted-in" (labelled tightpack.io/move=true) | "all"}.
Prints {"moves": [{"node", "pods": [{"pod", "to"}]}], "pending": N}; a
scenario that cannot be decoded prints {"error": "…"} naming the field.

  --jsonl   one scenario per input line, one result per output line, in order
  FILE      input file; '-' or nothing reads standard input
)";

int moves(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
          std::ostream& err) {
  return run_document_command({"moves", kMovesHelp, packing::moves_text}, argv, in, out, err);
}

}  // namespace tightpack::cli
