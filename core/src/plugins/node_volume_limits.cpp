#include "tightpack/plugins/node_volume_limits.hpp"

#include <algorithm>
#include <map>

namespace tightpack::plugins {

std::string driver_not_installed_reason(const std::string& driver) {
  return driver + " CSI driver is not installed on the node";
}

VolumeLimitsVerdict volume_limits(const StorageState& s, const std::vector<std::pair<std::string, std::string>>& attachable,
                                  const Node& node, const std::vector<BoundPod>& pods, const Relief* relief,
                                  bool limit_scaling) {
  if (attachable.empty()) return {};
  const CsiNode* csi_node = s.csi_node(node.name);
  if (limit_scaling) {
    // checkCSIDriverOnNode, in the order of the pod's volumes (upstream
    // walks a map: with several missing drivers it names any of them).
    for (size_t i = 0; i < attachable.size(); ++i) {
      const std::string& driver = attachable[i].second;
      const CsiDriver* d = s.csi_driver(driver);
      if (!d || !d->prevent_if_missing) continue;
      const bool installed = csi_node && std::any_of(csi_node->drivers.begin(), csi_node->drivers.end(),
                                                     [&](const CsiNode::Driver& x) { return x.name == driver; });
      if (!installed) return {VolumeLimitsVerdict::kDriverMissing, static_cast<uint8_t>(std::min<size_t>(i, 255))};
    }
  }
  if (!csi_node) return {};
  std::map<std::string, int64_t> limits;
  for (const CsiNode::Driver& d : csi_node->drivers) {
    if (d.count) limits[d.name] = *d.count;
  }
  if (limits.empty()) return {};
  std::map<std::string, std::string> attached;  // unique name → driver
  for (size_t k = 0; k < pods.size(); ++k) {
    if (relief && std::find(relief->positions.begin(), relief->positions.end(), k) != relief->positions.end()) continue;
    if (!pods[k].storage) continue;
    for (const auto& [unique, driver] : pods[k].storage->attached) attached.emplace(unique, driver);
  }
  std::map<std::string, int64_t> attached_count, new_count;
  for (const auto& [unique, driver] : attached) ++attached_count[driver];
  for (const auto& [unique, driver] : attachable) {
    if (!attached.count(unique)) ++new_count[driver];
  }
  for (const auto& [driver, count] : new_count) {
    auto limit = limits.find(driver);
    if (limit != limits.end() && attached_count[driver] + count > limit->second) return {VolumeLimitsVerdict::kExceeded};
  }
  return {};
}

}  // namespace tightpack::plugins
