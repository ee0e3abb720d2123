#include "cli/commands.hpp"
#include "cli/document_command.hpp"
#include "tightpack/replay.hpp"

namespace tightpack::cli {

const char* const kReplayHelp = R"(Usage: tightpack replay [--jsonl] [FILE|-]

Reads a scenario ({"profile", "nodes", "pods", "incoming"}, or a corpus line with
"scenario") and prints kube-scheduler's decisions as one JSON document:
{"profile": …, "results": [{"pod", "filter", "filterPlugin", "scores", "feasible",
"scored", "top", "chosen", "message"}]}. A scenario that cannot be decoded prints
{"error": "…"}.

  --jsonl   one scenario per input line, one result per output line, in order
  FILE      input file; '-' or nothing reads standard input
)";

int replay(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
           std::ostream& err) {
  return run_document_command({"replay", kReplayHelp, replay_text}, argv, in, out, err);
}

}  // namespace tightpack::cli
