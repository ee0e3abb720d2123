#include "tightpack/plugins/volume_zone.hpp"

#include <algorithm>
#include <string_view>

namespace tightpack::plugins {
namespace {

// v1.LabelFailureDomainBetaZone/Region and v1.LabelTopologyZone/Region, in
// the order getPVTopologies reads them.
constexpr std::string_view kTopologyLabels[] = {
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
};

std::string_view ga_label(std::string_view key) {
  if (key == kTopologyLabels[1]) return kTopologyLabels[3];
  if (key == kTopologyLabels[0]) return kTopologyLabels[2];
  return key;
}

// volumehelpers.LabelZonesToSet: zones separated by "__", each trimmed; an
// empty one makes the label unreadable (ignored).
std::optional<std::vector<std::string>> zones(std::string_view value) {
  std::vector<std::string> out;
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  while (true) {
    const size_t sep = value.find("__");
    std::string_view zone = value.substr(0, sep);
    const size_t first = zone.find_first_not_of(kSpace);
    if (first == std::string_view::npos) return std::nullopt;
    zone = zone.substr(first, zone.find_last_not_of(kSpace) - first + 1);
    out.emplace_back(zone);
    if (sep == std::string_view::npos) break;
    value.remove_prefix(sep + 2);
  }
  return out;
}

}  // namespace

std::optional<VolumeZonePreFilter> volume_zone_prefilter(const StorageState& s, const Pod& pod) {
  VolumeZonePreFilter out;
  for (const PodVolume& v : pod.volumes) {
    if (v.source != PodVolume::Source::kClaim) continue;  // ephemeral volumes are not read
    const PersistentVolumeClaim* claim = s.claim(pod.ns, v.claim);
    if (!claim) {
      out.rejection = "persistentvolumeclaim \"" + v.claim + "\" not found";
      return out;
    }
    if (claim->volume_name.empty()) {
      if (claim->class_name.empty()) {
        out.rejection = "PersistentVolumeClaim had no pv name and storageClass name";
        return out;
      }
      const StorageClass* sc = s.storage_class(claim->class_name);
      if (!sc) {
        out.rejection = "storageclass.storage.k8s.io \"" + claim->class_name + "\" not found";
        return out;
      }
      if (sc->wait_for_first_consumer) continue;
      out.rejection = "PersistentVolume had no name";
      return out;
    }
    const PersistentVolume* pv = s.volume(claim->volume_name);
    if (!pv) {
      out.rejection = "persistentvolume \"" + claim->volume_name + "\" not found";
      return out;
    }
    for (std::string_view key : kTopologyLabels) {
      const std::string* value = find_label(pv->labels, key);
      if (!value) continue;
      if (auto set = zones(*value))
        out.topologies.push_back(VolumeTopology{std::string(key), std::move(*set)});
    }
  }
  if (out.topologies.empty()) return std::nullopt;
  return out;
}

bool volume_zone_admits(const std::vector<VolumeTopology>& topologies, const Labels& node_labels) {
  bool constrained = false;
  for (std::string_view key : kTopologyLabels)
    constrained = constrained || find_label(node_labels, key);
  if (!constrained) return true;
  for (const VolumeTopology& t : topologies) {
    const std::string* value = find_label(node_labels, t.key);
    if (!value) value = find_label(node_labels, ga_label(t.key));
    if (!value || std::find(t.values.begin(), t.values.end(), *value) == t.values.end())
      return false;
  }
  return true;
}

VolumeZonePlugin::State VolumeZonePlugin::prepare(const PlanContext& ctx) {
  State s;
  if (ctx.pod.volumes.empty() || !ctx.profile.filter_enabled(kId)) return s;
  auto pre = volume_zone_prefilter(ctx.cluster.storage(), ctx.pod);
  if (!pre) return s;
  if (pre->rejection) s.failure = PreFilterFailure{false, std::move(*pre->rejection)};
  s.topologies = std::move(pre->topologies);
  return s;
}

}  // namespace tightpack::plugins
