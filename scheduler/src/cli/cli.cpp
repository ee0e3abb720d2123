#include "cli/cli.hpp"

#include <iostream>
#include <span>

#include "cli/commands.hpp"
#include "tightpack/error.hpp"
#include "version.hpp"

namespace tightpack::cli {
namespace {

// Every subcommand, in the order `tightpack --help` lists them. Adding one is a
// file with its function and help, their declarations in commands.hpp, and a
// line here.
const Command kCommands[] = {
    {"replay", "tightpack replay [--jsonl] [FILE|-]",
     "Decide scenarios in the shared corpus format (conformance interface).", kReplayHelp, replay},
    {"autoscale", "tightpack autoscale [--jsonl] [FILE|-]",
     "What cluster-autoscaler decides: scale-up and scale-down of node groups.", kAutoscaleHelp,
     autoscale},
    {"forecast",
     "tightpack forecast --cluster FILE [--pools FILE] [--remove SELECTOR] [--now TIME]\n"
     "                     [--output table|json]",
     "Which nodes cluster-autoscaler would remove, and what keeps the others.", kForecastHelp,
     forecast},
    {"predict",
     "tightpack predict --cluster FILE --pod FILE --replicas N [--config FILE]\n"
     "                    [--scheduler-name NAME] [--release R] [--pools FILE]\n"
     "                    [--[no-]extended-resource-toleration] [--output table|json]",
     "Where would N copies of a pod go in a cluster?", kPredictHelp, predict},
    {"advise",
     "tightpack advise --cluster FILE --pod FILE [--replicas N] [--pools FILE]\n"
     "                   [--config FILE] [--scheduler-name NAME] [--output table|json]",
     "Worker sizes that tile the nodes, and fixes the engine has proven.", kAdviseHelp, advise},
    {"admit", "tightpack admit [--extended-resource-toleration] [FILE|-]",
     "A pod as the API server stores it: defaulting and admission.", kAdmitHelp, admit},
    {"strip", "tightpack strip [FILE|-] | --fields",
     "A Kubernetes document with its pods cut to what scheduling reads.", kStripHelp, strip},
    {"pack-report",
     "tightpack pack-report [--tile] [--unneeded-times LIST] [--output table|json]\n"
     "                        SCENARIO",
     "How many nodes workloads arriving and leaving keep busy, per profile.", kPackReportHelp,
     pack_report},
    {"moves", "tightpack moves [--jsonl] [FILE|-]",
     "Nodes to empty by moving their Dask workers first (make before break).", kMovesHelp, moves},
    {"schedule",
     "tightpack schedule --config FILE [--kubeconfig FILE] [--pools FILE]\n"
     "                     [--publish FILE] [--listen HOST:PORT]",
     "Schedule pods in the cluster as kube-scheduler would (docs/scheduler.md).", kScheduleHelp,
     schedule},
};

const Command* find_command(std::string_view name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

// Names up to nine characters share the summary's line; longer ones stand alone.
constexpr size_t kSummaryColumn = 10;

void print_overview(std::ostream& out) {
  out << "tightpack — Kubernetes-exact placement engine\n\nUsage:\n";
  for (const Command& c : kCommands) out << "  " << c.synopsis << "\n";
  out << "  tightpack help [COMMAND]\n  tightpack --version\n\nCommands:\n";
  for (const Command& c : kCommands) {
    const std::string name = c.name;
    out << "  " << name;
    if (name.size() < kSummaryColumn) {
      out << std::string(kSummaryColumn - name.size(), ' ');
    } else {
      out << "\n" << std::string(kSummaryColumn + 2, ' ');
    }
    out << c.summary << "\n";
  }
  out << "\nRun 'tightpack COMMAND --help' for a command's options.\n";
}

}  // namespace

int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err) {
  if (args.empty()) {
    print_overview(err);
    return kUsage;
  }
  const std::string& name = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (name == "--help" || name == "-h") {
    print_overview(out);
    return kOk;
  }
  if (name == "help") {
    if (rest.empty()) {
      print_overview(out);
      return kOk;
    }
    const Command* c = find_command(rest[0]);
    if (!c) {
      err << "tightpack help: unknown command " << quote_value(rest[0]) << "\n";
      return kUsage;
    }
    out << c->help;
    return kOk;
  }
  if (name == "--version") {
    out << "tightpack " << kVersion << "\n";
    return kOk;
  }
  if (const Command* c = find_command(name)) return c->run(rest, in, out, err);
  err << "tightpack: unknown command " << quote_value(name) << "\n";
  print_overview(err);
  return kUsage;
}

}  // namespace tightpack::cli
