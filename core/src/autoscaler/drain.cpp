// Which pods a node drain would move, and what blocks it (utils/drain and
// simulator.DetailedGetPodsForMove with reference checks): the rules in CA's
// order, the first blocking pod wins.
#include "tightpack/autoscaler.hpp"
#include "tightpack/plugins/inter_pod_affinity.hpp"

namespace tightpack::autoscaler {
namespace {

constexpr std::string_view kSafeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict";
constexpr std::string_view kSafeToEvictLocalVolumes =
    "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes";

bool selects(const PdbSpec& pdb, const Pod& pod) {
  return pdb.selector && plugins::label_selector_matches(*pdb.selector, pod.labels);
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

}  // namespace

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

DrainResult pods_to_move(const std::vector<const CaPod*>& pods, const AutoscaleScenario& s) {
  DrainResult r;
  auto block = [&](DrainBlock b, size_t i) {
    r.to_move.clear();
    r.block = b;
    r.blocking_pod = i;
    return r;
  };
  for (size_t i = 0; i < pods.size(); ++i) {
    const CaPod& p = *pods[i];
    if (p.mirror) continue;
    const std::string& kind = p.controller_kind;
    // legacyCheckForReplicatedPods: ReplicationController first, then
    // DaemonSet pods (by owner or annotation), then the other controllers.
    // The lookup builds a string: only for the owners that need it.
    auto listed = [&] {
      return s.controllers.contains(kind + "/" + p.pod.ns + "/" + p.controller_name);
    };
    bool replicated = false;
    if (kind != "ReplicationController" && p.daemon_set) {
      if (kind == "DaemonSet" && !listed()) return block(DrainBlock::kControllerNotFound, i);
      continue;
    }
    if (known_controller(kind)) {
      if (!listed()) return block(DrainBlock::kControllerNotFound, i);
      replicated = true;
    } else if (!kind.empty() && !s.options.skip_nodes_with_custom_controller_pods) {
      replicated = true;
    }
    const std::string* safe = p.annotation(kSafeToEvict);
    if (!(safe && *safe == "true") && !p.pod.terminated()) {
      if (!replicated) return block(DrainBlock::kNotReplicated, i);
      if (p.pod.ns == "kube-system" && s.options.skip_nodes_with_system_pods) {
        bool has_pdb = false;
        for (const PdbSpec& pdb : s.pdbs)
          has_pdb = has_pdb || (pdb.ns == "kube-system" && selects(pdb, p.pod));
        if (!has_pdb) return block(DrainBlock::kUnmovableKubeSystemPod, i);
      }
      if (s.options.skip_nodes_with_local_storage && blocking_local_storage(p)) {
        return block(DrainBlock::kLocalStorageRequested, i);
      }
      if (safe && *safe == "false") return block(DrainBlock::kNotSafeToEvictAnnotation, i);
    }
    r.to_move.push_back(i);
  }
  // checkPdbs: budgets in order, the pods of each.
  for (const PdbSpec& pdb : s.pdbs) {
    for (size_t i : r.to_move) {
      const Pod& pod = pods[i]->pod;
      if (pod.ns == pdb.ns && selects(pdb, pod) && pdb.disruptions_allowed < 1) {
        return block(DrainBlock::kNotEnoughPdb, i);
      }
    }
  }
  return r;
}

}  // namespace tightpack::autoscaler
