#include "tightpack/plugins/volume_binding.hpp"

#include <algorithm>
#include <cmath>

#include "tightpack/framework/per_node.hpp"
#include "tightpack/kube_release.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/plugins/normalize.hpp"

namespace tightpack::plugins {
namespace {

constexpr std::string_view kNoProvisioner = "kubernetes.io/no-provisioner";

bool bound_to(const PersistentVolume& pv,
              const PersistentVolumeClaim& claim) {  // IsVolumeBoundToClaim
  if (!pv.claim_ref) return false;
  if (pv.claim_ref->name != claim.name || pv.claim_ref->ns != claim.ns) return false;
  return pv.claim_ref->uid.empty() || pv.claim_ref->uid == claim.uid;
}

bool contains(const std::vector<const PersistentVolume*>& list, const PersistentVolume* pv) {
  return std::find(list.begin(), list.end(), pv) != list.end();
}

// hasEnoughCapacity: true with no capacity object when the claim asks for no
// size or its provisioner does not track capacity.
bool enough_capacity(const StorageState& s, const PersistentVolumeClaim& claim,
                     const StorageClass& sc, const Node& node, const CsiStorageCapacity*& found) {
  found = nullptr;
  if (!claim.request) return true;
  const CsiDriver* driver = s.csi_driver(sc.provisioner);
  if (!driver || !driver->storage_capacity) return true;
  for (const CsiStorageCapacity& c : s.capacities()) {
    if (c.class_name != sc.name) continue;
    const std::optional<int64_t>& limit =
        c.maximum_volume_size ? c.maximum_volume_size : c.capacity;
    if (!limit || *limit < *claim.request) continue;
    if (!c.node_topology || !Selector::of(c.node_topology).matches(node.labels)) continue;
    found = &c;
    return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> volume_binding_reasons(uint8_t conflicts, bool reworded) {
  std::vector<std::string> out;
  if (conflicts & kVolumeNodeConflict) {
    out.emplace_back(reworded ? kVolumeNodeConflictReason : kVolumeNodeConflictReasonV130);
  }
  if (conflicts & kVolumeBindConflict) out.emplace_back(kVolumeBindConflictReason);
  if (conflicts & kVolumeNotEnoughSpace) out.emplace_back(kVolumeNotEnoughSpaceReason);
  if (conflicts & kVolumeMissing) out.emplace_back(kVolumeMissingReason);
  return out;
}

std::optional<VolumeBindingPreFilter> volume_binding_prefilter(const StorageState& s,
                                                               const Pod& pod) {
  VolumeBindingPreFilter out;
  bool has_claims = false;
  // podHasPVCs: every claim must exist, be neither lost nor being deleted,
  // and an ephemeral one must be the pod's.
  for (const PodVolume& v : pod.volumes) {
    const bool ephemeral = v.source == PodVolume::Source::kEphemeral;
    if (!ephemeral && v.source != PodVolume::Source::kClaim) continue;
    has_claims = true;
    const std::string name = claim_name(pod, v);
    const PersistentVolumeClaim* claim = s.claim(pod.ns, name);
    if (!claim) {
      out.rejection =
          ephemeral
              ? "waiting for ephemeral volume controller to create the persistentvolumeclaim \"" +
                    name + "\""
              : "persistentvolumeclaim \"" + name + "\" not found";
      return out;
    }
    if (claim->lost) {
      out.rejection = "persistentvolumeclaim \"" + claim->name +
                      "\" bound to non-existent persistentvolume \"" + claim->volume_name + "\"";
      return out;
    }
    if (claim->deleting) {
      out.rejection = "persistentvolumeclaim \"" + claim->name + "\" is being deleted";
      return out;
    }
    if (ephemeral && (!claim->controller || claim->controller->uid != pod.uid)) {
      out.rejection = "PVC " + claim->ns + "/" + claim->name + " was not created for pod " +
                      pod.ns + "/" + pod.name + " (pod is not owner)";
      return out;
    }
  }
  if (!has_claims) return std::nullopt;
  bool unbound_immediate = false;
  for (const PodVolume& v : pod.volumes) {
    if (v.source != PodVolume::Source::kClaim && v.source != PodVolume::Source::kEphemeral)
      continue;
    const PersistentVolumeClaim* claim = s.claim(pod.ns, claim_name(pod, v));
    if (!claim->volume_name.empty() && claim->bind_completed) {
      out.claims.bound.push_back(claim);
    } else if (s.delay_binding(*claim) && claim->volume_name.empty()) {
      out.claims.delayed.push_back(claim);
    } else {
      unbound_immediate = true;  // prebound claims too: the PV controller binds them
    }
  }
  if (unbound_immediate) out.rejection = kUnboundImmediateReason;
  return out;
}

std::vector<const PersistentVolume*> matching_candidates(
    const PersistentVolumeClaim& claim, const std::vector<const PersistentVolume*>& volumes) {
  const int64_t requested = claim.request.value_or(0);
  const Selector selector = claim.selector ? Selector::of(claim.selector) : Selector();
  std::vector<const PersistentVolume*> out;
  for (const PersistentVolume* pv : volumes) {
    if (pv->claim_ref && !bound_to(*pv, claim)) continue;
    if (pv->capacity < requested) continue;
    if (pv->block != claim.block) continue;
    if (pv->attributes_class != claim.attributes_class) continue;
    if (pv->deleting) continue;
    if (bound_to(*pv, claim)) {
      out.push_back(pv);
      continue;
    }
    if (pv->phase != "Available") continue;
    if (claim.selector && !selector.matches(pv->labels)) continue;
    if (pv->class_name != claim.class_name) continue;
    if ((claim.access_modes & pv->access_modes) != claim.access_modes) continue;
    out.push_back(pv);
  }
  return out;
}

const PersistentVolume* find_matching_volume(const PersistentVolumeClaim& claim,
                                             const std::vector<const PersistentVolume*>& candidates,
                                             const Node& node,
                                             const std::vector<const PersistentVolume*>& excluded) {
  const PersistentVolume* smallest = nullptr;
  for (const PersistentVolume* pv : candidates) {
    if (contains(excluded, pv)) continue;
    const bool reachable = volume_node_affinity_matches(*pv, node.labels);
    if (bound_to(*pv, claim)) return reachable ? pv : nullptr;
    if (!reachable) continue;
    // Of volumes of one size, kube-scheduler takes the first in Go map
    // order, the engine the first in input order.
    if (!smallest || smallest->capacity > pv->capacity) smallest = pv;
  }
  return smallest;
}

void resolve_candidates(const StorageState& s, PodClaims& claims) {
  claims.candidates.clear();
  for (const PersistentVolumeClaim* claim : claims.delayed) {
    claims.candidates.push_back(matching_candidates(*claim, s.volumes_of_class(claim->class_name)));
  }
}

NodeVolumes find_pod_volumes(const StorageState& s, const PodClaims& claims, const Node& node) {
  NodeVolumes out;
  // checkBoundClaims stops at the first claim whose volume is missing or out
  // of reach.
  for (const PersistentVolumeClaim* claim : claims.bound) {
    const PersistentVolume* pv = s.volume(claim->volume_name);
    if (!pv) {
      out.conflicts |= kVolumeMissing;
      break;
    }
    if (!volume_node_affinity_matches(*pv, node.labels)) {
      out.conflicts |= kVolumeNodeConflict;
      break;
    }
  }
  if (claims.delayed.empty()) return out;
  // (claim, its candidates)
  std::vector<std::pair<const PersistentVolumeClaim*, const std::vector<const PersistentVolume*>*>>
      to_match;
  std::vector<const PersistentVolumeClaim*> to_provision;
  std::vector<std::vector<const PersistentVolume*>> found_here;  // when not resolved beforehand
  if (claims.candidates.size() != claims.delayed.size()) found_here.reserve(claims.delayed.size());
  for (size_t i = 0; i < claims.delayed.size(); ++i) {
    const PersistentVolumeClaim* claim = claims.delayed[i];
    if (claim->selected_node) {
      if (*claim->selected_node != node.name) {
        out.conflicts |= kVolumeBindConflict;  // the fast path returns at once
        return out;
      }
      to_provision.push_back(claim);
    } else if (claims.candidates.size() == claims.delayed.size()) {
      to_match.emplace_back(claim, &claims.candidates[i]);
    } else {
      found_here.push_back(matching_candidates(*claim, s.volumes_of_class(claim->class_name)));
      to_match.emplace_back(claim, &found_here.back());
    }
  }
  bool satisfied = true;
  if (!to_match.empty()) {
    // byPVCSize with sort.Sort, which is an insertion sort (stable) for the
    // few claims a pod has.
    std::stable_sort(to_match.begin(), to_match.end(), [](const auto& a, const auto& b) {
      return a.first->request.value_or(0) < b.first->request.value_or(0);
    });
    std::vector<const PersistentVolume*> chosen;
    for (const auto& [claim, candidates] : to_match) {
      const PersistentVolume* pv = find_matching_volume(*claim, *candidates, node, chosen);
      if (!pv) {
        to_provision.push_back(claim);
        satisfied = false;
        continue;
      }
      chosen.push_back(pv);
      out.static_bindings.emplace_back(claim, pv);
    }
  }
  bool sufficient = true;
  if (!to_provision.empty()) {
    // checkVolumeProvisions decides alone whether the unbound claims are
    // satisfied: a claim no volume matched may still be provisioned.
    satisfied = true;
    for (const PersistentVolumeClaim* claim : to_provision) {
      const StorageClass* sc =
          s.storage_class(claim->class_name);  // delay binding: the class exists
      if (!sc || sc->provisioner.empty() || sc->provisioner == kNoProvisioner ||
          !topology_matches(sc->allowed_topologies, node.labels)) {
        satisfied = false;
        out.provisions.clear();
        break;
      }
      const CsiStorageCapacity* capacity = nullptr;
      if (!enough_capacity(s, *claim, *sc, node, capacity)) {
        sufficient = false;
        out.provisions.clear();
        break;
      }
      out.provisions.emplace_back(claim, capacity);
    }
  }
  if (!satisfied) out.conflicts |= kVolumeBindConflict;
  if (!sufficient) out.conflicts |= kVolumeNotEnoughSpace;
  return out;
}

VolumeNodeReads find_pod_volumes_reads(const StorageState& s, const PodClaims& claims) {
  VolumeNodeReads out;
  auto affinity_keys = [&](const PersistentVolume& pv) {
    if (!pv.node_affinity) return;
    for (const NodeSelectorTerm& term : *pv.node_affinity) {
      for (const auto& r : term.match_expressions) out.keys.push_back(r.key);
    }
  };
  for (const PersistentVolumeClaim* claim : claims.bound) {
    if (const PersistentVolume* pv = s.volume(claim->volume_name)) affinity_keys(*pv);
  }
  for (size_t i = 0; i < claims.delayed.size(); ++i) {
    const PersistentVolumeClaim& claim = *claims.delayed[i];
    if (claim.selected_node) out.name = true;
    if (i < claims.candidates.size()) {
      for (const PersistentVolume* pv : claims.candidates[i]) affinity_keys(*pv);
    } else {
      for (const PersistentVolume* pv :
           matching_candidates(claim, s.volumes_of_class(claim.class_name))) {
        affinity_keys(*pv);
      }
    }
    const StorageClass* sc = s.storage_class(claim.class_name);
    if (!sc) continue;
    for (const TopologySelectorTerm& term : sc->allowed_topologies) {
      for (const auto& [key, values] : term.match_label_expressions) out.keys.push_back(key);
    }
    for (const CsiStorageCapacity& c : s.capacities()) {
      if (c.class_name != sc->name || !c.node_topology) continue;
      for (const auto& [key, value] : c.node_topology->match_labels) out.keys.push_back(key);
      for (const auto& r : c.node_topology->match_expressions) out.keys.push_back(r.key);
    }
  }
  std::sort(out.keys.begin(), out.keys.end());
  out.keys.erase(std::unique(out.keys.begin(), out.keys.end()), out.keys.end());
  return out;
}

int64_t volume_binding_score(const NodeVolumes& v,
                             const std::vector<std::pair<int64_t, int64_t>>& shape) {
  if (shape.empty()) return 0;
  // classResourceMap: requested and capacity per class.
  std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> classes;
  auto entry = [&](const std::string& name) -> std::pair<int64_t, int64_t>& {
    for (auto& [n, rc] : classes) {
      if (n == name) return rc;
    }
    return classes.emplace_back(name, std::pair<int64_t, int64_t>{0, 0}).second;
  };
  if (!v.static_bindings.empty()) {
    for (const auto& [claim, pv] : v.static_bindings) {
      auto& [requested, capacity] = entry(pv->class_name);
      requested += claim->request.value_or(0);
      capacity += pv->capacity;
    }
  } else {
    for (const auto& [claim, capacity] : v.provisions) {
      if (!capacity) continue;
      auto& rc = entry(claim->class_name);
      // Not +=: two claims of one class share the node's capacity.
      rc.second = capacity->capacity.value_or(0);
      rc.first += claim->request.value_or(0);
    }
  }
  if (classes.empty()) return 0;
  // helper.BuildBrokenLinearFunction.
  auto raw = [&](int64_t p) {
    for (size_t i = 0; i < shape.size(); ++i) {
      if (p <= shape[i].first) {
        if (i == 0) return shape[0].second;
        return shape[i - 1].second + (shape[i].second - shape[i - 1].second) *
                                         (p - shape[i - 1].first) /
                                         (shape[i].first - shape[i - 1].first);
      }
    }
    return shape.back().second;
  };
  int64_t sum = 0;
  for (const auto& [name, rc] : classes) {
    const auto [requested, capacity] = rc;
    sum += (capacity == 0 || requested > capacity) ? raw(100) : raw(requested * 100 / capacity);
  }
  return static_cast<int64_t>(
      std::round(static_cast<double>(sum) / static_cast<double>(classes.size())));
}

namespace {

// The claims of a pod that still wait for their first consumer (unbound,
// of a WaitForFirstConsumer class), as FindPodVolumes takes them.
PodClaims unbound_delayed_claims(const StorageState& s, const PodStorage& pod) {
  PodClaims claims;
  for (const std::string& key : pod.delayed_claims) {
    const PersistentVolumeClaim* c = s.claim_by_key(key);
    if (c && c->volume_name.empty() && s.delay_binding(*c)) claims.delayed.push_back(c);
  }
  return claims;
}

}  // namespace

BindingPlan binding_plan(const StorageState& s, const PodStorage& pod, const Node& node) {
  BindingPlan plan;
  if (pod.delayed_claims.empty()) return plan;
  NodeVolumes found = find_pod_volumes(s, unbound_delayed_claims(s, pod), node);
  plan.conflicts = found.conflicts != 0;
  if (plan.conflicts) return plan;
  for (const auto& [claim, pv] : found.static_bindings)
    plan.static_bindings.emplace_back(claim->key(), pv->name);
  for (const auto& [claim, capacity] : found.provisions) plan.provisions.push_back(claim->key());
  return plan;
}

void assume_pod_volumes(StorageState& s, const PodStorage& pod, const Node& node) {
  if (pod.delayed_claims.empty()) return;
  // AssumePodVolumes: the claims FindPodVolumes matched with a volume bind
  // it (its claimRef), the others are provisioned on this node.
  const NodeVolumes found = find_pod_volumes(s, unbound_delayed_claims(s, pod), node);
  if (found.conflicts)
    return;  // placed where VolumeBinding did not decide (a what-if): nothing to assume
  for (const auto& [claim, pv] : found.static_bindings) s.assume_bound(*pv, *claim);
  for (const auto& [claim, capacity] : found.provisions) s.assume_provisioned(*claim, node.name);
}

VolumeBindingPlugin::State VolumeBindingPlugin::prepare(const PlanContext& ctx) {
  State s;
  if (ctx.pod.volumes.empty() || !ctx.profile.filter_enabled(kId)) return s;
  const StorageState& st = ctx.cluster.storage();
  auto pre = volume_binding_prefilter(st, ctx.pod);
  if (!pre) return s;
  if (pre->rejection) s.failure = PreFilterFailure{false, std::move(*pre->rejection)};
  for (const PersistentVolumeClaim* claim : pre->claims.bound) {
    const PersistentVolume* pv = st.volume(claim->volume_name);
    if (pv && migrates_to_csi(pv->in_tree_plugin) && st.migrated(pv->in_tree_plugin)) {
      s.failure =
          PreFilterFailure{true, "volume " + pv->name + " of in-tree plugin " + pv->in_tree_plugin +
                                     " migrated to CSI (VolumeBinding translates its "
                                     "node affinity)"};
      return s;
    }
    s.bound_claims.push_back(claim->key());
  }
  for (const PersistentVolumeClaim* claim : pre->claims.delayed)
    s.delayed_claims.push_back(claim->key());
  s.filters = true;
  s.scores = kube_release::volume_binding_scores(ctx.profile.kube_minor) &&
             ctx.profile.score_weight(kId) > 0;
  if (ctx.first_fit) return s;
  // FindPodVolumes once per node, for the filter's verdict and the score.
  const Cluster& c = ctx.cluster;
  const PodClaims claims = VolumeBindingPlugin::claims(s, c);
  std::vector<std::pair<int64_t, int64_t>> shape;
  if (s.scores) {
    for (const ShapePoint& point : ctx.profile.volume_shape
                                       ? *ctx.profile.volume_shape
                                       : std::vector<ShapePoint>{{0, 10}, {100, 0}}) {
      shape.emplace_back(point.utilization, point.score * (kMaxNodeScore / 10));
    }
    s.score.resize(c.size());
  }
  s.conflicts.resize(c.size());
  // The score (0-100) and the conflicts (a byte) in one value.
  const VolumeNodeReads reads = find_pod_volumes_reads(st, claims);
  const std::vector<int64_t> found =
      per_node_by_labels(c, reads.keys, reads.name, [&](NodeIndex i) {
        const NodeVolumes v = find_pod_volumes(st, claims, c.node(i));
        return (s.scores ? volume_binding_score(v, shape) << 8 : 0) | v.conflicts;
      });
  for (NodeIndex i = 0; i < c.size(); ++i) {
    s.conflicts[i] = static_cast<uint8_t>(found[i] & 0xff);
    if (s.scores) s.score[i] = found[i] >> 8;
  }
  return s;
}

NodeStatus VolumeBindingPlugin::filter(const State& s, const Cluster& c, NodeIndex n) {
  const uint8_t conflicts = s.conflicts.empty()
                                ? find_pod_volumes(c.storage(), claims(s, c), c.node(n)).conflicts
                                : s.conflicts[n];
  if (!conflicts) return {};
  NodeStatus status{Code::UnschedulableAndUnresolvable, kId};
  status.detail = conflicts;
  return status;
}

std::vector<std::string> VolumeBindingPlugin::reasons(const State&, const Cluster&, NodeIndex,
                                                      const NodeStatus& status,
                                                      const ReasonContext& ctx) {
  return volume_binding_reasons(status.detail,
                                kube_release::volume_reasons_reworded(ctx.kube_minor));
}

PodClaims VolumeBindingPlugin::claims(const State& s, const Cluster& c) {
  PodClaims out;
  auto resolve = [&](const std::vector<std::string>& keys,
                     std::vector<const PersistentVolumeClaim*>& into) {
    for (const std::string& key : keys) {
      const size_t slash = key.find('/');
      if (const PersistentVolumeClaim* claim =
              c.storage().claim(key.substr(0, slash), key.substr(slash + 1))) {
        into.push_back(claim);
      }
    }
  };
  resolve(s.bound_claims, out.bound);
  resolve(s.delayed_claims, out.delayed);
  resolve_candidates(c.storage(), out);
  return out;
}

}  // namespace tightpack::plugins
