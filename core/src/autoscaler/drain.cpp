// Which pods a node drain would move, and what blocks it:
// simulator/drainability/rules, in rules.Default's order.
#include "tightpack/autoscaler/drain.hpp"

#include <optional>
#include <string>

#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/plugins/inter_pod_affinity.hpp"
#include "tightpack/timestamp.hpp"

namespace tightpack::autoscaler {
namespace {

constexpr std::string_view kSafeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict";
constexpr std::string_view kSafeToEvictLocalVolumes =
    "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes";

bool selects(const PdbSpec& pdb, const Pod& pod) {
  return pdb.selector && label_selector_matches(*pdb.selector, pod.labels);
}

// HasBlockingLocalStorage: emptyDir/hostPath volumes not named in the
// safe-to-evict-local-volumes annotation.
bool blocking_local_storage(const CaPod& p) {
  if (p.local_volumes.empty()) return false;
  std::vector<std::string> allowed;
  if (const std::string* list = p.annotation(kSafeToEvictLocalVolumes)) {
    size_t start = 0;
    while (start <= list->size()) {
      size_t comma = list->find(',', start);
      if (comma == std::string::npos) comma = list->size();
      allowed.push_back(list->substr(start, comma - start));
      start = comma + 1;
    }
  }
  for (const std::string& v : p.local_volumes) {
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) return true;
  }
  return false;
}

// The controller kinds CA looks up; any other owner does not count as a
// replicating controller.
bool known_controller(const std::string& kind) {
  return kind == "ReplicationController" || kind == "Job" || kind == "ReplicaSet" ||
         kind == "StatefulSet";
}

constexpr int64_t kSystemPodDisruptionTimeout = 3600;  // seconds
constexpr int64_t kDefaultTerminationGracePeriod =
    30;  // apiv1.DefaultTerminationGracePeriodSeconds
constexpr int64_t kLongTerminatingExtraThreshold = 30;  // drain.PodLongTerminatingExtraThreshold

// schema.ParseGroupVersion's group: "" and "/" are the empty group, no "/" a
// version of the empty group, one "/" splits group and version; nullopt for
// more than one "/", the error on which replicacount looks nothing up.
std::optional<std::string> api_group(const std::string& api_version) {
  if (api_version.empty() || api_version == "/") return std::string();
  const size_t slash = api_version.find('/');
  if (slash == std::string::npos) return std::string();
  if (api_version.find('/', slash + 1) != std::string::npos) return std::nullopt;
  return api_version.substr(0, slash);
}

// replicacount/rule.go: whether the pod's controller is looked up in a
// lister. A ReplicationController, Job or ReplicaSet of any group is; a
// DaemonSet pod's owner and a StatefulSet only in the "apps" group (a
// DaemonSet pod owned by anything else is not looked up at all).
bool looked_up(const CaPod& p) {
  if (!p.pod.controller) return false;
  const std::optional<std::string> group = api_group(p.pod.controller->api_version);
  if (!group) return false;
  const std::string& kind = p.controller_kind;
  if (kind == "ReplicationController") return true;
  if (p.daemon_set) return *group == "apps" && kind == "DaemonSet";
  if (kind == "Job" || kind == "ReplicaSet") return true;
  return kind == "StatefulSet" && *group == "apps";
}

}  // namespace

bool long_terminating(const CaPod& p, std::optional<int64_t> now) {
  if (!now || p.pod.deletion_timestamp.empty()) return false;
  const std::optional<int64_t> deleted = rfc3339_seconds(p.pod.deletion_timestamp);
  if (!deleted) return false;
  // DeletionTimestamp + grace + 30 s, Before(now): strictly earlier.
  return *deleted + p.grace_period.value_or(kDefaultTerminationGracePeriod) +
             kLongTerminatingExtraThreshold <
         *now;
}

const char* drain_block_name(DrainBlock b) {
  switch (b) {
    case DrainBlock::kNone:
      return "";
    case DrainBlock::kNotReplicated:
      return "NotReplicated";
    case DrainBlock::kControllerNotFound:
      return "ControllerNotFound";
    case DrainBlock::kUnmovableKubeSystemPod:
      return "UnmovableKubeSystemPod";
    case DrainBlock::kLocalStorageRequested:
      return "LocalStorageRequested";
    case DrainBlock::kNotSafeToEvictAnnotation:
      return "NotSafeToEvictAnnotation";
    case DrainBlock::kNotEnoughPdb:
      return "NotEnoughPdb";
  }
  return "";
}

RemainingPdbs initial_pdbs(const AutoscaleScenario& s) {
  RemainingPdbs out;
  for (const PdbSpec& pdb : s.pdbs) out.push_back(pdb.disruptions_allowed);
  return out;
}

void remove_pods(const AutoscaleScenario& s, const std::vector<const Pod*>& moved,
                 RemainingPdbs& remaining) {
  for (size_t b = 0; b < s.pdbs.size(); ++b) {
    for (const Pod* pod : moved) {
      if (pod->ns == s.pdbs[b].ns && selects(s.pdbs[b], *pod)) --remaining[b];
    }
  }
}

PodDrain drain_of(const CaPod& pod, const Options& options) {
  AutoscaleScenario s;
  s.options = options;
  const DrainResult r = pods_to_move({&pod}, s, nullptr, false);
  return PodDrain{!r.to_move.empty(), r.block};
}

DrainResult pods_to_move(const std::vector<const CaPod*>& pods, const AutoscaleScenario& s,
                         const RemainingPdbs* remaining, bool listers) {
  DrainResult r;
  auto block = [&](DrainBlock b, size_t i) {
    r.to_move.clear();
    r.block = b;
    r.blocking_pod = i;
    return r;
  };
  // RemainingPdbTracker.MatchingPdbs: same namespace, selector matches.
  auto has_pdb = [&](const Pod& pod) {
    if (!remaining) return false;
    for (const PdbSpec& pdb : s.pdbs) {
      if (pod.ns == pdb.ns && selects(pdb, pod)) return true;
    }
    return false;
  };
  for (size_t i = 0; i < pods.size(); ++i) {
    const CaPod& p = *pods[i];
    // mirror: static pods are not evicted.
    if (p.mirror) continue;
    // longterminating: skipped, neither moved nor blocking.
    if (long_terminating(p, s.options.now)) continue;
    const std::string& kind = p.controller_kind;
    // replicacount (in the rules only while custom-controller pods block):
    // the controller the pod names must be listed.
    if (listers && s.options.skip_nodes_with_custom_controller_pods) {
      auto listed = [&] {
        return s.controllers.contains(kind + "/" + p.pod.ns + "/" + p.controller_name);
      };
      if (looked_up(p) && !listed()) return block(DrainBlock::kControllerNotFound, i);
    }
    // daemonset: drained with the node, not moved.
    if (p.daemon_set) continue;
    // safetoevict, terminal: moved, no later rule asked.
    const std::string* safe = p.annotation(kSafeToEvict);
    if ((safe && *safe == "true") || p.pod.terminated()) {
      r.to_move.push_back(i);
      continue;
    }
    // replicated
    const bool replicated =
        s.options.skip_nodes_with_custom_controller_pods ? known_controller(kind) : !kind.empty();
    if (!replicated) return block(DrainBlock::kNotReplicated, i);
    // system: a kube-system pod without a budget blocks until it is older than
    // --blocking-system-pod-distruption-timeout (1 h, kubernetes/autoscaler#7914).
    if (s.options.skip_nodes_with_system_pods && p.pod.ns == "kube-system" && !has_pdb(p.pod)) {
      if (p.created && s.options.now && *s.options.now > *p.created + kSystemPodDisruptionTimeout) {
        r.to_move.push_back(i);
        continue;
      }
      return block(DrainBlock::kUnmovableKubeSystemPod, i);
    }
    // notsafetoevict
    if (safe && *safe == "false") return block(DrainBlock::kNotSafeToEvictAnnotation, i);
    // localstorage
    if (s.options.skip_nodes_with_local_storage && blocking_local_storage(p)) {
      return block(DrainBlock::kLocalStorageRequested, i);
    }
    // pdb: any matching budget with no disruption left.
    if (remaining) {
      for (size_t b = 0; b < s.pdbs.size(); ++b) {
        const PdbSpec& pdb = s.pdbs[b];
        if (p.pod.ns == pdb.ns && selects(pdb, p.pod) && (*remaining)[b] < 1) {
          return block(DrainBlock::kNotEnoughPdb, i);
        }
      }
    }
    r.to_move.push_back(i);
  }
  return r;
}

}  // namespace tightpack::autoscaler
