// The scale-down forecast: cluster-autoscaler's scale-down run on a snapshot
// and its pools, each verdict put in a sentence. The verdicts are
// run_scale_down's; nothing here decides.
#include "tightpack/pools/forecast.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "autoscaler/run.hpp"
#include "tightpack/autoscaler/drain.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/plugins/inter_pod_affinity.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::pools {
namespace {

using autoscaler::CaPod;

std::string pods_phrase(size_t n) {
  return std::to_string(n) + (n == 1 ? " pod" : " pods");
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + quote_value(s);
  return out;
}

std::string blocked_by_pod(std::string_view why, const std::string& key, const CaPod* p) {
  const std::string pod = "pod " + key;
  if (why == "NotReplicated") {
    if (!p || p->controller_kind.empty())
      return pod + " has no controller: nothing would recreate it";
    return pod + " is owned by " + p->controller_kind + " " + p->controller_name +
           ", a custom controller (--skip-nodes-with-custom-controller-pods)";
  }
  if (why == "ControllerNotFound") {
    if (!p) return pod + ": its controller is not in the snapshot";
    return pod + ": its controller " + p->controller_kind + " " + p->controller_name +
           " is not in the snapshot";
  }
  if (why == "UnmovableKubeSystemPod")
    return "kube-system " + pod + " without a PodDisruptionBudget";
  if (why == "LocalStorageRequested") {
    if (!p || p->local_volumes.empty()) return pod + " uses local storage";
    return pod + " uses local storage (emptyDir or hostPath volume " +
           quoted_list(p->local_volumes) + ")";
  }
  if (why == "NotSafeToEvictAnnotation") {
    return pod + " is annotated cluster-autoscaler.kubernetes.io/safe-to-evict: \"false\"";
  }
  if (why == "NotEnoughPdb") return pod + ": its PodDisruptionBudget allows no disruption now";
  return pod + " blocks the drain";
}

// The pods on each node in the order the rules saw them.
std::vector<std::vector<const CaPod*>> pods_by_node(const autoscaler::AutoscaleScenario& s,
                                                    const std::vector<const CaPod*>& pods) {
  std::unordered_map<std::string_view, size_t> index_of;
  for (size_t i = 0; i < s.nodes.size(); ++i) index_of.emplace(s.nodes[i].node.name, i);
  std::vector<std::vector<const CaPod*>> on(s.nodes.size());
  for (const CaPod* p : pods) {
    if (p->pod.terminated() || p->pod.node_name.empty()) continue;
    auto it = index_of.find(p->pod.node_name);
    if (it != index_of.end()) on[it->second].push_back(p);
  }
  return on;
}

// What the user named that no running pod answered to: a snapshot older than
// the workers, or a name from another cluster, would otherwise look like a
// forecast with nothing to free.
std::vector<std::string> unmatched_notes(const PodRemoval& remove,
                                         const std::vector<const CaPod*>& removed) {
  std::vector<std::string> notes;
  if (remove.selector && std::none_of(removed.begin(), removed.end(), [&](const CaPod* p) {
        return label_selector_matches(*remove.selector, p->pod.labels);
      })) {
    notes.emplace_back("no running pod matches the selector: nothing was removed");
  }
  std::unordered_set<std::string> taken_pods, taken_deployments;
  for (const CaPod* p : removed) {
    if (!remove.pods.empty()) taken_pods.insert(p->pod.key());
    if (!remove.deployments.empty()) taken_deployments.insert(deployment_of(*p));
  }
  // `noun` "a", "b" `verb` in the snapshot: nothing was removed for them (or
  // the singular), for the names `taken` lacks.
  auto note_missing = [&](const std::vector<std::string>& named,
                          const std::unordered_set<std::string>& taken, const std::string& noun,
                          const char* verb_one, const char* verb_many) {
    std::vector<std::string> missing;
    for (const std::string& key : named) {
      if (!taken.contains(key)) missing.push_back(key);
    }
    if (missing.empty()) return;
    const bool one = missing.size() == 1;
    notes.push_back((one ? noun : noun + "s") + " " + quoted_list(missing) + " " +
                    (one ? verb_one : verb_many) + " in the snapshot: nothing was removed for " +
                    (one ? "it" : "them"));
  };
  note_missing(remove.pods, taken_pods, "pod", "is not running", "are not running");
  note_missing(remove.deployments, taken_deployments, "Deployment", "has no running pod",
               "have no running pod");
  return notes;
}

}  // namespace

std::string format_percent(double fraction) {
  if (!std::isfinite(fraction) || fraction < 0) return "-";
  // Products like 0.58 * 1000 land a hair below the integer; real utilization
  // values differ from a tenth of a percent by far more than this.
  const auto permille = static_cast<int64_t>(std::floor(fraction * 1000 + 1e-9));
  std::string out = std::to_string(permille / 10);
  if (permille % 10 != 0) out += "." + std::to_string(permille % 10);
  return out + "%";
}

std::string format_duration(int64_t seconds) {
  if (seconds <= 0) return "0s";
  std::string out;
  if (seconds >= 3600) out += std::to_string(seconds / 3600) + "h";
  if (seconds % 3600 >= 60) out += std::to_string(seconds % 3600 / 60) + "m";
  if (seconds % 60 != 0) out += std::to_string(seconds % 60) + "s";
  return out;
}

std::string_view blocker_fix(std::string_view reason) {
  if (reason == "NotUnderutilized") {
    return "busy: it becomes a candidate once its pods' requests fall below the threshold";
  }
  if (reason == "NoPlaceToMovePods") {
    return "the other nodes have no room (or no matching toleration, selector or free host port) "
           "for the pod: the node stays until they do or the pod ends";
  }
  if (reason == "NodeGroupMinSizeReached") return "lower the pool's minimum size (minSize)";
  if (reason == "NotAutoscaled") {
    return "name the node's pool in a NodePools document, or give the node a pool label";
  }
  if (reason == "ScaleDownDisabledAnnotation") {
    return "remove the node annotation cluster-autoscaler.kubernetes.io/scale-down-disabled";
  }
  if (reason == "BlockedByPod/NotReplicated") {
    return "annotate the pod cluster-autoscaler.kubernetes.io/safe-to-evict: \"true\" (for Dask "
           "workers, in the worker pod template), or run cluster-autoscaler with "
           "--skip-nodes-with-custom-controller-pods=false when a custom controller owns it";
  }
  if (reason == "BlockedByPod/ControllerNotFound") {
    return "take the snapshot with its controllers (kubectl get "
           "nodes,pods,daemonsets,replicasets,statefulsets,jobs,pdb -A -o json); a pod whose "
           "controller is gone blocks cluster-autoscaler too";
  }
  if (reason == "BlockedByPod/LocalStorageRequested") {
    return "annotate the pod cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes with "
           "the volume names (or safe-to-evict: \"true\"), or run cluster-autoscaler with "
           "--skip-nodes-with-local-storage=false";
  }
  if (reason == "BlockedByPod/NotSafeToEvictAnnotation") {
    return "the pod asked not to be evicted: wait for it to finish, or remove the annotation";
  }
  if (reason == "BlockedByPod/UnmovableKubeSystemPod") {
    return "wait until the pod is an hour old, give it a PodDisruptionBudget, or run "
           "cluster-autoscaler with --skip-nodes-with-system-pods=false";
  }
  if (reason == "BlockedByPod/NotEnoughPdb") {
    return "wait until the budget allows a disruption, or relax its minAvailable/maxUnavailable";
  }
  return "";
}

Result<ScaleDownForecast> forecast_scale_down(const ClusterSnapshot& snapshot,
                                              const ResolvedPools& pools, const PoolsConfig& config,
                                              const PodRemoval& remove,
                                              std::optional<int64_t> now) {
  ScaleDownForecast f;
  f.unneeded_seconds = config.scale_down_unneeded_seconds;
  // The rules read the snapshot's pods where they are, less those removed.
  autoscaler::AutoscaleScenario s = autoscale_scenario_without_pods(snapshot, pools, config);
  s.scale_down = true;
  s.options.now = now;
  s.pending.clear();
  std::vector<const CaPod*> bound;
  std::vector<const CaPod*> removed;
  bound.reserve(snapshot.pods.size());
  const PodRemovalMatcher removes(remove);
  for (const CaPod& p : snapshot.pods) {
    if (removes(p)) {
      f.removed_pods.push_back(p.pod.key());
      removed.push_back(&p);
    } else {
      bound.push_back(&p);
    }
  }
  size_t pending = snapshot.pending.size();
  if (!remove.empty()) {
    pending = static_cast<size_t>(std::count_if(snapshot.pending.begin(), snapshot.pending.end(),
                                                [&](const CaPod& p) { return !removes(p); }));
  }

  // No scale-up ran: every group at its current size, no pending pod packed.
  autoscaler::RunRecord run;
  for (const autoscaler::NodeGroupSpec& g : s.groups) {
    run.target_sizes.push_back(g.target_size.value_or(static_cast<int64_t>(g.nodes.size())));
  }
  const Profile profile = autoscaler::ca_profile();
  auto down = autoscaler::run_scale_down(s, bound, profile, run);
  if (!down) return down.error();

  std::unordered_map<std::string_view, const NodePool*> pool_of;
  for (const NodePool& p : pools.pools) {
    for (const std::string& n : p.nodes) pool_of.emplace(n, &p);
  }
  // Only the nodes the rules did not measure, or a pod blocks, need their
  // pods again: grouped once, when first needed.
  std::optional<std::vector<std::vector<const CaPod*>>> by_node;
  auto on = [&](size_t i) -> const std::vector<const CaPod*>& {
    if (!by_node) by_node = pods_by_node(s, bound);
    return (*by_node)[i];
  };
  int64_t drained = 0;  // removable nodes with pods to move
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const Node& node = s.nodes[i].node;
    NodeForecast nf;
    nf.node = node.name;
    const NodePool* pool = nullptr;
    if (auto it = pool_of.find(node.name); it != pool_of.end()) pool = it->second;
    if (pool) {
      nf.pool = pool->name;
      nf.pool_inferred = pool->source == PoolSource::kInferred;
    }
    if (auto it = down->utilization.find(node.name); it != down->utilization.end()) {
      nf.utilization = it->second;
    } else {
      // Not reached by the rules (no pool, min size, annotation): the same
      // calculation, for the user's information.
      std::vector<const Pod*> pods;
      for (const CaPod* p : on(i)) {
        if (!autoscaler::long_terminating(*p, s.options.now)) pods.push_back(&p->pod);
      }
      nf.utilization = autoscaler::node_utilization(node, pods, s.options.gpu_label);
    }
    const autoscaler::Utilization& u = nf.utilization;
    nf.threshold = u.gpu_node ? s.options.scale_down_gpu_utilization_threshold
                              : s.options.scale_down_utilization_threshold;
    const std::string after =
        "removable after " + format_duration(f.unneeded_seconds) + " unneeded";
    auto blocked = down->blocked.find(node.name);
    if (blocked == down->blocked.end()) {
      nf.removable = true;
      nf.empty = std::binary_search(down->empty.begin(), down->empty.end(), node.name);
      nf.pods_to_move = down->pods_to_move[node.name];
      if (nf.empty) {
        nf.message = "empty (DaemonSet and mirror pods only): " + after;
      } else {
        ++drained;
        nf.message = "its " + pods_phrase(nf.pods_to_move) + " fit on other nodes: " + after;
      }
    } else {
      nf.reason = blocked->second;
      const std::string& r = nf.reason;
      if (r == "NotUnderutilized") {
        nf.message = u.resource + " " + format_percent(u.value) + " ≥ " +
                     (u.gpu_node ? "GPU threshold " : "threshold ") + format_percent(nf.threshold);
      } else if (r == "NoPlaceToMovePods") {
        nf.blocking_pod = down->unplaceable_pods[node.name];
        nf.message = "pod " + nf.blocking_pod + " fits on no other node";
      } else if (r == "NodeGroupMinSizeReached") {
        nf.message =
            "pool " + nf.pool + " at min size " + std::to_string(pool ? pool->min_size : 0);
      } else if (r == "NotAutoscaled") {
        nf.message = "node in no pool: no configured pool claims it and it carries no pool label";
      } else if (r == "ScaleDownDisabledAnnotation") {
        nf.message =
            "node annotated cluster-autoscaler.kubernetes.io/scale-down-disabled: \"true\"";
      } else if (r.rfind("BlockedByPod/", 0) == 0) {
        nf.blocking_pod = down->blocking_pods[node.name];
        const CaPod* p = nullptr;
        for (const CaPod* q : on(i)) {
          if (q->pod.key() == nf.blocking_pod) p = q;
        }
        nf.message = blocked_by_pod(std::string_view(r).substr(13), nf.blocking_pod, p);
      } else {
        nf.message = r;
      }
    }
    f.removable += nf.removable ? 1 : 0;
    f.not_autoscaled += pool ? 0 : 1;
    f.nodes.push_back(std::move(nf));
  }

  for (const NodePool& p : pools.pools) {
    if (p.nodes.empty()) continue;
    PoolForecast pf{p.name, p.source == PoolSource::kInferred, p.min_size,
                    static_cast<int64_t>(p.nodes.size()), 0};
    for (const NodeForecast& nf : f.nodes) pf.removable += nf.pool == p.name && nf.removable;
    f.pools.push_back(std::move(pf));
  }

  f.notes = pools.notes;
  for (std::string& note : unmatched_notes(remove, removed)) f.notes.push_back(std::move(note));
  if (pending > 0) {
    f.notes.push_back(
        pods_phrase(pending) +
        " pending, left out: cluster-autoscaler would first place them on existing nodes "
        "(raising those nodes' utilization) or scale up, and a scale-up pauses scale-down "
        "(--scale-down-delay-after-add, 10m by default)");
  }
  if (drained > 1) {
    f.notes.push_back(
        "nodes are judged one after another, as cluster-autoscaler does: the pods of the " +
        std::to_string(drained) +
        " removable nodes that are not empty fit elsewhere all at once, each node's where "
        "the ones before left room; cluster-autoscaler still drains them a few at a time "
        "(--max-scale-down-parallelism) and judges again every loop");
  }
  if (snapshot.listed_kinds.empty() && snapshot.pdbs.empty()) {
    f.notes.push_back(
        "the snapshot lists no controllers and no PodDisruptionBudgets: the controllers pods "
        "name are taken to exist, and no pod has a budget (take it with kubectl get "
        "nodes,pods,daemonsets,replicasets,statefulsets,jobs,pdb -A -o json for the full "
        "picture)");
  }
  return f;
}

}  // namespace tightpack::pools
