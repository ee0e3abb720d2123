#include "tightpack/plugins/node_volume_limits.hpp"

#include <algorithm>

#include "tightpack/kube_release.hpp"

namespace tightpack::plugins {

std::string driver_not_installed_reason(const std::string& driver) {
  return driver + " CSI driver is not installed on the node";
}

VolumeLimitsVerdict volume_limits(
    const std::vector<std::pair<std::string, std::string>>& attachable,
    const std::vector<const CsiDriver*>& drivers, const CsiNode* csi_node,
    const std::vector<BoundPod>& pods, const Relief* relief, bool limit_scaling,
    const std::vector<const std::pair<std::string, std::string>*>* attached_on_node) {
  if (attachable.empty()) return {};
  if (limit_scaling) {
    // checkCSIDriverOnNode, in the order of the pod's volumes (upstream
    // walks a map: with several missing drivers it names any of them).
    for (size_t i = 0; i < attachable.size(); ++i) {
      const std::string& driver = attachable[i].second;
      const CsiDriver* d = drivers[i];
      if (!d || !d->prevent_if_missing) continue;
      const bool installed =
          csi_node && std::any_of(csi_node->drivers.begin(), csi_node->drivers.end(),
                                  [&](const CsiNode::Driver& x) { return x.name == driver; });
      if (!installed)
        return {VolumeLimitsVerdict::kDriverMissing,
                static_cast<uint8_t>(std::min<size_t>(i, 255))};
    }
  }
  if (!csi_node) return {};
  auto limit_of = [&](const std::string& driver) -> const std::optional<int32_t>* {
    for (const CsiNode::Driver& d : csi_node->drivers) {
      if (d.name == driver && d.count) return &d.count;
    }
    return nullptr;
  };
  if (std::none_of(attachable.begin(), attachable.end(),
                   [&](const auto& a) { return limit_of(a.second); }))
    return {};
  // The node's attached volumes: the cluster's list, or, when a relief takes
  // pods off the node, counted again without them.
  const bool walk = relief || !attached_on_node;
  std::vector<const std::pair<std::string, std::string>*> walked;
  for (size_t k = 0; walk && k < pods.size(); ++k) {
    if (!pods[k].storage) continue;
    if (relief &&
        std::find(relief->positions.begin(), relief->positions.end(), k) != relief->positions.end())
      continue;
    add_attached_volumes(walked, *pods[k].storage);
  }
  const auto& attached = walk ? walked : *attached_on_node;
  // Per driver of the pod's new volumes: the node's volumes of that driver
  // and the new ones must stay within its limit.
  for (size_t i = 0; i < attachable.size(); ++i) {
    const std::string& driver = attachable[i].second;
    if (std::any_of(attachable.begin(), attachable.begin() + static_cast<std::ptrdiff_t>(i),
                    [&](const auto& a) { return a.second == driver; })) {
      continue;  // counted with its first volume
    }
    const std::optional<int32_t>* limit = limit_of(driver);
    if (!limit) continue;
    int64_t fresh = 0;
    for (const auto& volume : attachable) {
      if (volume.second != driver) continue;
      if (std::none_of(attached.begin(), attached.end(),
                       [&](const auto* a) { return a->first == volume.first; })) {
        ++fresh;
      }
    }
    if (fresh == 0) continue;  // nothing new to attach: not checked, even on a node over its limit
    const int64_t count = std::count_if(attached.begin(), attached.end(),
                                        [&](const auto* a) { return a->second == driver; });
    if (count + fresh > **limit) return {VolumeLimitsVerdict::kExceeded};
  }
  return {};
}

NodeVolumeLimitsPlugin::State NodeVolumeLimitsPlugin::prepare(const PlanContext& ctx) {
  State s;
  s.limit_scaling = kube_release::volume_limit_scaling(ctx.profile.kube_minor);
  if (ctx.pod.volumes.empty() || !ctx.profile.filter_enabled(kId)) return s;
  const StorageState& st = ctx.cluster.storage();
  // NodeVolumeLimits translates in-tree volumes to CSI on every node with a
  // CSINode; the engine does not.
  if (!st.csi_nodes_empty() &&
      ((ctx.storage && ctx.storage->in_tree) || ctx.cluster.in_tree_volume_pods() > 0)) {
    s.failure = PreFilterFailure{
        true, "in-tree volumes on nodes with a CSINode (NodeVolumeLimits translates them to CSI)"};
    return s;
  }
  s.attachable = st.attachable(ctx.pod);
  for (const auto& [volume, driver] : s.attachable) s.drivers.push_back(st.csi_driver(driver));
  return s;
}

NodeStatus NodeVolumeLimitsPlugin::filter(const State& s, const Cluster& c, NodeIndex n,
                                          const Relief* relief) {
  const VolumeLimitsVerdict v = volume_limits(s.attachable, s.drivers, c.csi_node(n), c.pods_on(n),
                                              relief, s.limit_scaling, &c.attached_volumes(n));
  if (v.kind == VolumeLimitsVerdict::kAdmits) return {};
  NodeStatus status{Code::Unschedulable, kId};
  status.detail = v.kind == VolumeLimitsVerdict::kExceeded ? 0 : static_cast<uint8_t>(1 + v.driver);
  return status;
}

}  // namespace tightpack::plugins
