#include "tightpack/what_if/mounted_claims.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <string_view>

#include "json_write.hpp"
#include "tightpack/storage_state.hpp"

namespace tightpack {
namespace json = boost::json;
namespace {

// Zone keys differ by provisioner (the well-known labels, and each CSI
// driver's topology key), and all of them end so.
bool zone_key(std::string_view key) {
  return key.ends_with("zone");
}

std::vector<std::string> volume_zones(const PersistentVolume& pv) {
  std::vector<std::string> zones;
  if (!pv.node_affinity) return zones;
  for (const NodeSelectorTerm& term : *pv.node_affinity) {
    for (const NodeSelectorRequirement& r : term.match_expressions) {
      if (r.op != "In" || !zone_key(r.key)) continue;
      for (const std::string& z : r.values) {
        if (std::find(zones.begin(), zones.end(), z) == zones.end()) zones.push_back(z);
      }
    }
  }
  return zones;
}

size_t nodes_admitting(const Cluster& cluster, const PersistentVolume& pv) {
  size_t n = 0;
  for (NodeIndex i = 0; i < cluster.size(); ++i)
    n += volume_node_affinity_matches(pv, cluster.node(i).labels) ? 1 : 0;
  return n;
}

MountedClaim mounted(const Cluster& cluster, const Pod& pod, const PodVolume& v) {
  const StorageState& storage = cluster.storage();
  MountedClaim m;
  m.ns = pod.ns;
  m.name = v.claim;
  const PersistentVolumeClaim* claim = storage.claim(pod.ns, v.claim);
  if (!claim) return m;
  m.listed = true;
  if (!claim->class_name.empty()) m.storage_class = claim->class_name;
  m.default_class = claim->class_defaulted;
  if (m.storage_class) {
    if (const StorageClass* sc = storage.storage_class(*m.storage_class))
      m.wait_for_first_consumer = sc->wait_for_first_consumer;
  }
  if (!claim->volume_name.empty()) {
    m.volume = claim->volume_name;
    if (const PersistentVolume* pv = storage.volume(claim->volume_name)) {
      m.bound = true;
      m.zones = volume_zones(*pv);
      if (pv->node_affinity) m.mountable_nodes = nodes_admitting(cluster, *pv);
    }
  }
  return m;
}

}  // namespace

const char* binding_mode_name(bool wait_for_first_consumer) {
  return wait_for_first_consumer ? "WaitForFirstConsumer" : "Immediate";
}

std::vector<MountedClaim> mounted_claims(const Cluster& cluster, const Pod& pod) {
  std::vector<MountedClaim> out;
  for (const PodVolume& v : pod.volumes) {
    if (v.source == PodVolume::Source::kClaim) out.push_back(mounted(cluster, pod, v));
  }
  return out;
}

json::array encode_mounted_claims(const std::vector<MountedClaim>& claims) {
  json::array out;
  for (const MountedClaim& c : claims) {
    json::value mode = nullptr;
    if (c.wait_for_first_consumer) mode = binding_mode_name(*c.wait_for_first_consumer);
    out.push_back(json::object{{"namespace", c.ns},
                               {"name", c.name},
                               {"listed", c.listed},
                               {"storageClass", json_write::nullable(c.storage_class)},
                               {"defaultClass", c.default_class},
                               {"bindingMode", mode},
                               {"volume", json_write::nullable(c.volume)},
                               {"bound", c.bound},
                               {"zones", json_write::string_array(c.zones)},
                               {"mountableNodes", json_write::nullable(c.mountable_nodes)}});
  }
  return out;
}

}  // namespace tightpack
