#include <boost/json.hpp>
#include <iomanip>
#include <iostream>

#include "cli/args.hpp"
#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "cli/document_command.hpp"
#include "cli/scale_up_table.hpp"
#include "cli/what_if_question.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/what_if/mounted_claims.hpp"
#include "tightpack/what_if/outlook.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace tightpack::cli {
namespace json = boost::json;

const char* const kPredictHelp =
    R"(Usage: tightpack predict --cluster FILE --pod FILE --replicas N [options]

Places N copies of the pod, one after another, the way kube-scheduler would, and
shows how many land on each node with the node's fill before and after, then the
copies that fit nowhere with kube-scheduler's FailedScheduling message. With
--pools, cluster-autoscaler's scale-up for those copies follows: the nodes each
pool adds, the copies they take, when they are ready, and why the rest can never
run (docs/pools.md).

  --cluster FILE         nodes and pods: `kubectl get nodes,pods -A -o json`, a
                         NodeList/PodList, or {"nodes": […], "pods": […]}; JSON or YAML
  --pod FILE             the pod (a v1 Pod, JSON or YAML); '-' reads standard input
  --replicas N           how many copies (1 to 1000000)
  --config FILE          a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1);
                         without it, kube-scheduler's default profile
  --scheduler-name NAME  the profile to use: a schedulerName of the configuration, or
                         default, most-allocated, rtc or tightpack (default: the pod's
                         spec.schedulerName when the configuration has it, else the
                         configuration's first profile, else kube-scheduler's default)
  --release v1.37|v1.36|v1.35|v1.30
                         decide and word as that kube-scheduler release does (default
                         v1.37); zero-to-jupyterhub's released charts run v1.30.14,
                         its next major v1.35
  --pools FILE           a NodePools document (tightpack.io/v1alpha1), JSON or YAML;
                         pools it does not name are inferred from the nodes' pool
                         labels (GKE, EKS, AKS, Karpenter, instance type)
  --extended-resource-toleration, --no-extended-resource-toleration
                         whether the API server runs the ExtendedResourceToleration
                         admission plugin (a GPU pod tolerates its taint); by
                         default, when the nodes carry GKE's node-pool label
  --output table|json    (default: table)

The pod is admitted first as the API server would (see `tightpack admit`). The
claims it mounts are listed before the nodes: the volume each is bound to and the
zones that volume allows, or the class it has (the default one when it names
none) and when that class makes its disk.

Exit status: 0 every copy placed (with --pools: today or on the nodes a scale-up
adds), 3 some copies can never run, 1 bad input, 2 bad usage.
)";

namespace {

std::string percent(int64_t part, int64_t whole) {
  if (whole <= 0) return "-";
  return std::to_string(part * 100 / whole) + "%";
}

void print_placement(std::ostream& out, const Placement& p) {
  out << "Profile " << p.scheduler_name << ": " << p.placed << " of " << p.replicas
      << " replicas placed on " << p.nodes.size() << " node(s)\n\n";
  if (!p.nodes.empty()) {
    size_t width = 4;
    for (const LandedNode& n : p.nodes) width = std::max(width, n.node.size());
    out << std::left << std::setw(static_cast<int>(width)) << "NODE"
        << "  REPLICAS  CPU BEFORE->AFTER  "
        << "MEMORY BEFORE->AFTER\n";
    for (const LandedNode& n : p.nodes) {
      std::string cpu = percent(n.cpu_before, n.cpu_allocatable) + " -> " +
                        percent(n.cpu_after, n.cpu_allocatable);
      std::string mem = percent(n.memory_before, n.memory_allocatable) + " -> " +
                        percent(n.memory_after, n.memory_allocatable);
      out << std::left << std::setw(static_cast<int>(width)) << n.node << "  " << std::right
          << std::setw(8) << n.replicas << "  " << std::left << std::setw(18) << cpu << mem << "\n";
    }
  }
  if (p.placed < p.replicas) {
    out << "\n"
        << (p.replicas - p.placed) << " replica(s) unschedulable: " << p.unschedulable_message
        << "\n";
  }
}

// The changes a user may not expect; DefaultTolerationSeconds is on every pod.
void print_admission(std::ostream& out, const std::vector<AdmissionChange>& changes) {
  bool any = false;
  for (const AdmissionChange& c : changes) {
    if (c.by == "defaulting") {
      out << "Admitted: container " << c.container << " requests " << c.resource << " "
          << c.quantity << " (its limit)\n";
    } else if (c.by == "ExtendedResourceToleration") {
      const json::value* key = c.toleration.if_contains("key");
      out << "Admitted: tolerates "
          << (key && key->is_string() ? std::string(key->get_string()) : "")
          << ":NoSchedule (ExtendedResourceToleration)\n";
    } else {
      continue;
    }
    any = true;
  }
  if (any) out << "\n";
}

// What each claim the pod mounts holds it to: a disk's zone, or where and
// when its disk is made.
void print_claims(std::ostream& out, const std::vector<MountedClaim>& claims) {
  for (const MountedClaim& c : claims) {
    out << "Claim " << c.ns << "/" << c.name << ": ";
    if (!c.listed) {
      out << "not in the cluster\n";
      continue;
    }
    if (c.bound) {
      out << "bound to volume " << *c.volume;
      if (c.zones.empty()) {
        out << ", any zone\n";
      } else {
        out << " in zone ";
        for (size_t i = 0; i < c.zones.size(); ++i) out << (i ? " or " : "") << c.zones[i];
        out << "\n";
      }
      continue;
    }
    out << (c.volume ? "not bound yet (volume " + *c.volume + " is not in the cluster), "
                     : std::string("not bound yet, "));
    if (!c.storage_class) {
      out << "no class\n";
      continue;
    }
    out << "class " << *c.storage_class << (c.default_class ? " (the default)" : "");
    out << ", "
        << (c.wait_for_first_consumer ? binding_mode_name(*c.wait_for_first_consumer)
                                      : "not in the cluster")
        << "\n";
  }
  if (!claims.empty()) out << "\n";
}

}  // namespace

int predict(const std::vector<std::string>& argv, std::istream& in, std::ostream& out,
            std::ostream& err) {
  Args a;
  std::string error;
  if (!parse_args(argv, kWhatIfOptions,
                  {"--help", "--extended-resource-toleration", "--no-extended-resource-toleration"},
                  a, error) ||
      !a.positional.empty()) {
    err << "tightpack predict: "
        << (error.empty() ? "unexpected argument " + a.positional[0] : error) << "\n"
        << kPredictHelp;
    return kUsage;
  }
  if (has_flag(a, "--help")) {
    out << kPredictHelp;
    return kOk;
  }
  int code = kOk;
  auto question = read_what_if_question(a, "predict", kPredictHelp, true, false, in, err, code);
  if (!question) return code;
  WhatIfCluster& cluster = question->cluster;
  const Pod& pod = question->pod;
  const int64_t replicas = *question->replicas;
  const std::string& output = question->output;
  auto result = cluster.place(pod, replicas, question->profile);
  if (!result) {
    err << "tightpack predict: " << result.error().what() << "\n";
    return kInputError;
  }
  result->drain = question->drain;
  result->claims = mounted_claims(cluster.cluster(), pod);
  const Placement& placement = *result;
  if (output == "json") {
    out << json::serialize(encode_placement(placement, question->admitted)) << "\n";
  } else {
    print_admission(out, question->admitted);
    print_claims(out, placement.claims);
    print_placement(out, placement);
    if (placement.scale_up) print_scale_up(out, *placement.scale_up);
    // One pod, with pools: the words the hub's spawn page shows beside its profile.
    if (placement.replicas == 1 && placement.scale_up) {
      out << "\nOutlook: " << outlook_text(outlook_of(placement)) << "\n";
    }
  }
  if (placement.scale_up)
    return placement.scale_up->prediction.every_replica_runs() ? kOk : kUnschedulable;
  return placement.placed < placement.replicas ? kUnschedulable : kOk;
}

}  // namespace tightpack::cli
