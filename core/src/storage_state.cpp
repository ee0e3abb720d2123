#include "tightpack/storage_state.hpp"

#include <algorithm>

#include "tightpack/node_affinity_terms.hpp"

namespace tightpack {
namespace {

// csi-translation-lib's in-tree plugin names and the drivers they migrate to.
constexpr std::pair<std::string_view, std::string_view> kMigration[] = {
    {"kubernetes.io/gce-pd", "pd.csi.storage.gke.io"},
    {"kubernetes.io/aws-ebs", "ebs.csi.aws.com"},
    {"kubernetes.io/cinder", "cinder.csi.openstack.org"},
    {"kubernetes.io/azure-disk", "disk.csi.azure.com"},
    {"kubernetes.io/azure-file", "file.csi.azure.com"},
    {"kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com"},
    {"kubernetes.io/portworx-volume", "pxd.portworx.com"},
};

bool in_tree(std::string_view provisioner) {
  return std::any_of(std::begin(kMigration), std::end(kMigration),
                     [&](const auto& m) { return m.first == provisioner; });
}

const char* in_tree_plugin_of(const PodVolume& v) {
  switch (v.source) {
    case PodVolume::Source::kGcePersistentDisk:
      return "kubernetes.io/gce-pd";
    case PodVolume::Source::kAwsElasticBlockStore:
      return "kubernetes.io/aws-ebs";
    case PodVolume::Source::kInTreeMigratable:
      return v.disk.c_str();
    default:
      return nullptr;
  }
}

template <class T, class Index>
const T* lookup(const std::vector<T>& list, const Index& index, std::string_view key) {
  auto it = index.find(key);
  return it == index.end() ? nullptr : &list[it->second];
}

}  // namespace

std::optional<std::string> unlisted_claims(const ApiObjects& objects, const Pod& pod,
                                           std::string_view plugin) {
  if (objects.storage_listed) return std::nullopt;
  const bool claims = std::any_of(pod.volumes.begin(), pod.volumes.end(), [](const PodVolume& v) {
    return v.source == PodVolume::Source::kClaim || v.source == PodVolume::Source::kEphemeral;
  });
  if (!claims) return std::nullopt;
  return "persistent volume claims when the cluster's claims, volumes and classes are not given (" +
         std::string(plugin) + ")";
}

bool migrates_to_csi(std::string_view plugin) {
  return plugin == "kubernetes.io/aws-ebs" || plugin == "kubernetes.io/portworx-volume" ||
         plugin == "kubernetes.io/gce-pd" || plugin == "kubernetes.io/azure-disk" ||
         plugin == "kubernetes.io/cinder";
}

std::string claim_name(const Pod& pod, const PodVolume& v) {
  return v.source == PodVolume::Source::kEphemeral ? pod.name + "-" + v.name : v.claim;
}

bool volume_node_affinity_matches(const PersistentVolume& pv, const Labels& node_labels) {
  if (!pv.node_affinity) return true;
  for (const NodeSelectorTerm& term : *pv.node_affinity) {
    if (NodeSelectorTermMatcher(term).matches_labels(node_labels)) return true;
  }
  return false;
}

bool topology_matches(const std::vector<TopologySelectorTerm>& terms, const Labels& node_labels) {
  if (terms.empty()) return true;
  for (const TopologySelectorTerm& term : terms) {
    if (term.match_label_expressions.empty()) continue;  // selects nothing
    bool all = true;
    for (const auto& [key, values] : term.match_label_expressions) {
      const std::string* value = find_label(node_labels, key);
      if (!value || std::find(values.begin(), values.end(), *value) == values.end()) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

StorageState::StorageState(const ApiObjects& o)
    : claims_(o.claims),
      volumes_(o.volumes),
      classes_(o.storage_classes),
      csi_nodes_(o.csi_nodes),
      drivers_(o.csi_drivers),
      capacities_(o.csi_capacities) {
  // The listers hold one object per key: the last one given wins, as a
  // store's Replace keeps it.
  for (uint32_t i = 0; i < claims_.size(); ++i) claim_by_key_[claims_[i].key()] = i;
  for (uint32_t i = 0; i < volumes_.size(); ++i) volume_by_name_[volumes_[i].name] = i;
  // A name listed twice is its last object, as in the lister.
  for (const auto& [name, i] : volume_by_name_)
    volumes_by_class_[volumes_[i].class_name].push_back(i);
  for (auto& [name, list] : volumes_by_class_) std::sort(list.begin(), list.end());  // input order
  for (uint32_t i = 0; i < classes_.size(); ++i) class_by_name_[classes_[i].name] = i;
  for (uint32_t i = 0; i < csi_nodes_.size(); ++i) csi_node_by_name_[csi_nodes_[i].name] = i;
  for (uint32_t i = 0; i < drivers_.size(); ++i) driver_by_name_[drivers_[i].name] = i;
  for (const CsiNode& n : csi_nodes_) {
    for (const std::string& p : n.migrated_plugins) {
      if (std::find(migrated_.begin(), migrated_.end(), p) == migrated_.end())
        migrated_.push_back(p);
    }
  }
}

const PersistentVolumeClaim* StorageState::claim(std::string_view ns, std::string_view name) const {
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append("/").append(name);
  return lookup(claims_, claim_by_key_, key);
}
const PersistentVolume* StorageState::volume(std::string_view name) const {
  return lookup(volumes_, volume_by_name_, name);
}
const StorageClass* StorageState::storage_class(std::string_view name) const {
  return lookup(classes_, class_by_name_, name);
}
const CsiNode* StorageState::csi_node(std::string_view node) const {
  return lookup(csi_nodes_, csi_node_by_name_, node);
}
uint32_t StorageState::csi_node_index(std::string_view node) const {
  auto it = csi_node_by_name_.find(node);
  return it == csi_node_by_name_.end() ? kNoCsiNode : it->second;
}
const CsiDriver* StorageState::csi_driver(std::string_view name) const {
  return lookup(drivers_, driver_by_name_, name);
}

std::vector<const PersistentVolume*> StorageState::volumes_of_class(
    std::string_view class_name) const {
  std::vector<const PersistentVolume*> out;
  auto it = volumes_by_class_.find(std::string(class_name));
  if (it == volumes_by_class_.end()) return out;
  out.reserve(it->second.size());
  for (uint32_t i : it->second) out.push_back(&volumes_[i]);
  return out;
}

bool StorageState::delay_binding(const PersistentVolumeClaim& claim) const {
  if (claim.class_name.empty()) return false;
  const StorageClass* sc = storage_class(claim.class_name);
  return sc && sc->wait_for_first_consumer;
}

bool StorageState::migrated(std::string_view plugin) const {
  return std::find(migrated_.begin(), migrated_.end(), plugin) != migrated_.end();
}

std::vector<std::pair<std::string, std::string>> StorageState::attachable(const Pod& pod) const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const PodVolume& v : pod.volumes) {
    if (v.source != PodVolume::Source::kClaim && v.source != PodVolume::Source::kEphemeral)
      continue;
    const PersistentVolumeClaim* c = claim(pod.ns, claim_name(pod, v));
    if (!c) continue;
    // getCSIDriverInfo: the bound volume's CSI source, else the class'
    // provisioner with a handle made from the claim (the same for every pod
    // that shares it; kube-scheduler prefixes a random string).
    std::string driver, handle;
    const PersistentVolume* pv = c->volume_name.empty() ? nullptr : volume(c->volume_name);
    if (pv) {
      if (pv->csi_driver.empty()) continue;  // in-tree without migration, or not attachable
      driver = pv->csi_driver;
      handle = pv->csi_handle;
    } else {
      if (c->class_name.empty()) continue;
      const StorageClass* sc = storage_class(c->class_name);
      if (!sc || in_tree(sc->provisioner))
        continue;  // migrated in-tree provisioners are refused earlier
      driver = sc->provisioner;
      handle = "\x01" + c->ns + "/" + c->name;
    }
    if (driver.empty() || handle.empty()) continue;
    std::string unique = driver + "/" + handle;
    if (std::none_of(out.begin(), out.end(), [&](const auto& a) { return a.first == unique; })) {
      out.emplace_back(std::move(unique), std::move(driver));
    }
  }
  return out;
}

std::shared_ptr<const PodStorage> StorageState::storage_of(const Pod& pod) const {
  PodStorage s;
  for (const PodVolume& v : pod.volumes) {
    switch (v.source) {
      case PodVolume::Source::kClaim:
        s.claim_keys.push_back(pod.ns + "/" + v.claim);
        break;
      case PodVolume::Source::kGcePersistentDisk:
      case PodVolume::Source::kAwsElasticBlockStore:
      case PodVolume::Source::kIscsi:
      case PodVolume::Source::kRbd:
        s.disks.push_back(v);
        break;
      default:
        break;
    }
    if (const char* plugin = in_tree_plugin_of(v); plugin && migrates_to_csi(plugin))
      s.in_tree = true;
    if (v.source == PodVolume::Source::kClaim || v.source == PodVolume::Source::kEphemeral) {
      const PersistentVolumeClaim* c = claim(pod.ns, claim_name(pod, v));
      if (!c) continue;
      if (c->volume_name.empty() && delay_binding(*c)) s.delayed_claims.push_back(c->key());
      const PersistentVolume* pv = c->volume_name.empty() ? nullptr : volume(c->volume_name);
      if (pv && migrates_to_csi(pv->in_tree_plugin)) s.in_tree = true;
      if (!pv && !c->class_name.empty()) {
        const StorageClass* sc = storage_class(c->class_name);
        if (sc && migrates_to_csi(sc->provisioner)) s.in_tree = true;
      }
    }
  }
  s.attached = attachable(pod);
  if (s.empty()) return nullptr;
  return std::make_shared<const PodStorage>(std::move(s));
}

const PersistentVolumeClaim* StorageState::claim_by_key(std::string_view key) const {
  return lookup(claims_, claim_by_key_, key);
}

void StorageState::assume_bound(const PersistentVolume& volume,
                                const PersistentVolumeClaim& claim) {
  PersistentVolume& v = volumes_[static_cast<size_t>(&volume - volumes_.data())];
  if (!v.claim_ref || v.claim_ref->ns != claim.ns || v.claim_ref->name != claim.name ||
      v.claim_ref->uid != claim.uid) {
    v.claim_ref = ClaimReference{claim.ns, claim.name, claim.uid};
    ++epoch_;
  }
}

void StorageState::assume_provisioned(const PersistentVolumeClaim& claim, const std::string& node) {
  claims_[static_cast<size_t>(&claim - claims_.data())].selected_node = node;
  ++epoch_;
}

}  // namespace tightpack
