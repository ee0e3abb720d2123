#include <boost/json.hpp>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/args.hpp"
#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/what_if_question.hpp"
#include "tightpack/advice/advice.hpp"
#include "tightpack/quantity.hpp"

namespace tightpack::cli {
namespace json = boost::json;

const char* const kAdviseHelp =
    R"(Usage: tightpack advise --cluster FILE --pod FILE [--replicas N] [options]

For each node pool the pod is meant for, how many copies of it a new node takes
(the node cluster-autoscaler would add: allocatable less its DaemonSets, copies
placed by kube-scheduler's own filters), which resource stops the next one, how
much of the node stays idle, and the largest shapes at or below the pod's
requests that fit more copies per node (GPUs whole; cpu and memory shrink
together when both bind). A pool is not meant for the pod when it offers GPUs and
the pod asks for none, when it is the hub's core pool, or when the pod's node
selector excludes it (docs/advice.md).

With --replicas N, also what N copies do as the pod is and at each pool's first
shape (copies running, nodes used), and the fixes for copies that never run or
run on a pool not meant for them: tolerations, a node selector, a smaller shape,
a pool's max size (for its operator), fewer copies. Each fix was decided again on
the same cluster; only those that run more copies where they are meant are shown,
best first.

  --cluster FILE         nodes and pods: `kubectl get nodes,pods -A -o json` (with
                         DaemonSets, for new nodes' DaemonSet pods), JSON or YAML
  --pod FILE             the pod (a v1 Pod, JSON or YAML); '-' reads standard input
  --replicas N           how many copies (1 to 1000000)
  --pools FILE           a NodePools document (tightpack.io/v1alpha1), JSON or YAML;
                         pools it does not name, and all without it, are inferred
                         from the nodes' pool labels
  --config FILE          a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)
  --scheduler-name NAME  the profile to use (as `tightpack predict`)
  --release v1.37|v1.36|v1.35|v1.30
  --extended-resource-toleration, --no-extended-resource-toleration
                         whether the API server runs the ExtendedResourceToleration
                         admission plugin; by default, when the nodes carry GKE's
                         node-pool label
  --output table|json    (default: table)

Exit status: 0 every copy runs (or no --replicas), 3 some copies can never run as
the pod is, 1 bad input, 2 bad usage.
)";

namespace {

std::string percent(double share) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(std::fabs(share) < 0.1 ? 1 : 0) << share * 100 << "%";
  return s.str();
}

// "cpu 3950m (-1.2%)": the resources the shape changes.
std::string shape_text(const advice::Shape& s) {
  std::string out;
  for (const auto& [name, change] : s.change) {
    if (change == 0) continue;
    out += (out.empty() ? "" : ", ") + name + " " +
           format_resource(name, *find_resource(s.requests, name)) + " (" + percent(change) + ")";
  }
  return out;
}

std::string outcome_text(const advice::Outcome& o) {
  std::ostringstream s;
  s << (o.now + o.after_scale_up) << " of " << o.replicas << " run (" << o.now << " now, "
    << o.after_scale_up << " after scale-up) on " << o.nodes << " node(s), " << o.nodes_added
    << " added";
  if (o.never) s << "; " << o.never << " never";
  if (o.off_pool) s << "; " << o.off_pool << " on pools not meant for them";
  return s.str();
}

std::string fix_text(const advice::Fix& f) {
  std::vector<std::string> parts;
  for (const Toleration& t : f.change.add_tolerations) {
    parts.push_back("tolerate " + t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + t.effect);
  }
  for (const auto& [k, v] : f.change.add_node_selector) parts.push_back("select " + k + "=" + v);
  if (f.change.shape) parts.push_back("ask for " + shape_text(*f.change.shape));
  if (f.change.replicas)
    parts.push_back("ask for " + std::to_string(*f.change.replicas) + " copies");
  if (f.max_size) {
    parts.push_back("ask the operator to raise the max size of pool " + f.max_size->pool +
                    " from " + std::to_string(f.max_size->from) + " to " +
                    std::to_string(f.max_size->to));
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out + ": " + outcome_text(f.outcome);
}

const char* why_text(advice::NotMeant why) {
  switch (why) {
    case advice::NotMeant::kGpu:
      return "offers GPUs, the pod asks for none";
    case advice::NotMeant::kHubCore:
      return "the hub's core pool";
    case advice::NotMeant::kReserved:
      return "tainted for another kind of pod";
    case advice::NotMeant::kSelector:
      return "its node selector or affinity excludes it";
    case advice::NotMeant::kMeant:
      break;
  }
  return "";
}

void print_tiling(std::ostream& out, const advice::Advice& a) {
  if (a.tiling.empty()) {
    out << "No pool meant for this pod admits it (see predict for why).\n";
  }
  for (const advice::PoolTiling& t : a.tiling) {
    out << "Pool " << t.pool << ": " << t.per_node << " per new node, bound by " << t.binding
        << "; idle";
    for (const auto& [name, share] : t.idle) out << " " << name << " " << percent(share);
    out << "\n";
    for (const advice::Shape& s : t.suggestions) {
      out << "  " << s.per_node << " per node with " << shape_text(s) << "\n";
    }
    if (t.suggestions.empty()) out << "  no smaller shape fits more\n";
  }
  std::string not_meant;
  for (const advice::PoolIntent& i : a.intent) {
    if (!i.meant()) not_meant += "\n  " + i.pool + ": " + why_text(i.why);
  }
  if (!not_meant.empty()) out << "Not meant for this pod:" << not_meant << "\n";
}

void print_advice(std::ostream& out, const advice::Advice& a) {
  print_tiling(out, a);
  if (!a.as_is) return;
  out << "\n" << *a.replicas << " copies as the pod is: " << outcome_text(*a.as_is) << "\n";
  for (const auto& [pool, outcome] : a.at_first_suggestion) {
    for (const advice::PoolTiling& t : a.tiling) {
      if (t.pool != pool) continue;
      out << "With " << shape_text(t.suggestions.front()) << ": " << outcome_text(outcome) << "\n";
    }
  }
  if (a.fixes.empty()) return;
  out << "\nFixes, best first:\n";
  int i = 0;
  for (const advice::Fix& f : a.fixes) out << "  " << ++i << ". " << fix_text(f) << "\n";
}

}  // namespace

int advise(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
           std::ostream& err) {
  Args a;
  std::string error;
  if (!parse_args(argv, kWhatIfOptions,
                  {"--help", "--extended-resource-toleration", "--no-extended-resource-toleration"},
                  a, error) ||
      !a.positional.empty()) {
    err << "tightpack advise: "
        << (error.empty() ? "unexpected argument " + a.positional[0] : error) << "\n"
        << kAdviseHelp;
    return kUsage;
  }
  if (has_flag(a, "--help")) {
    out << kAdviseHelp;
    return kOk;
  }
  int code = kOk;
  auto q = read_what_if_question(a, "advise", kAdviseHelp, false, true, in, err, code);
  if (!q) return code;
  auto advice = advice::advise(q->cluster, q->pod, q->replicas, q->profile);
  if (!advice) {
    err << "tightpack advise: " << advice.error().what() << "\n";
    return kInputError;
  }
  if (q->output == "json") {
    out << json::serialize(advice::encode_advice(*advice, q->admitted)) << "\n";
  } else {
    out << "Profile " << advice->scheduler_name << "\n\n";
    print_advice(out, *advice);
  }
  return advice->as_is && advice->as_is->never > 0 ? kUnschedulable : kOk;
}

}  // namespace tightpack::cli
