#include "tightpack/plugins/volume_restrictions.hpp"

#include <algorithm>

namespace tightpack::plugins {
namespace {

bool overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& x) {
    return std::find(b.begin(), b.end(), x) != b.end();
  });
}

bool conflict(const PodVolume& v, const PodVolume& e) {
  using Source = PodVolume::Source;
  if (v.source != e.source) return false;
  switch (v.source) {
    case Source::kGcePersistentDisk:
    case Source::kIscsi:
      return v.disk == e.disk && !(v.read_only && e.read_only);
    case Source::kAwsElasticBlockStore:
      return v.disk == e.disk;
    case Source::kRbd:
      return overlap(v.monitors, e.monitors) && v.pool == e.pool && v.disk == e.disk &&
             !(v.read_only && e.read_only);
    default:
      return false;
  }
}

}  // namespace

VolumeRestrictionsPreFilter volume_restrictions_prefilter(const StorageState& s, const Pod& pod) {
  VolumeRestrictionsPreFilter out;
  for (const PodVolume& v : pod.volumes) {
    switch (v.source) {
      case PodVolume::Source::kGcePersistentDisk:
      case PodVolume::Source::kAwsElasticBlockStore:
      case PodVolume::Source::kIscsi:
      case PodVolume::Source::kRbd:
        out.disks.push_back(v);
        break;
      default:
        break;
    }
    if (v.source != PodVolume::Source::kClaim) continue;
    const PersistentVolumeClaim* claim = s.claim(pod.ns, v.claim);
    if (!claim) {
      out.rejection = "persistentvolumeclaim \"" + v.claim + "\" not found";
      return out;
    }
    if ((claim->access_modes & kReadWriteOncePod) &&
        std::find(out.read_write_once_pod.begin(), out.read_write_once_pod.end(), claim->name) ==
            out.read_write_once_pod.end()) {
      out.read_write_once_pod.push_back(claim->name);
    }
  }
  return out;
}

bool disks_conflict(const std::vector<PodVolume>& disks, const PodStorage& other) {
  for (const PodVolume& v : disks) {
    for (const PodVolume& e : other.disks) {
      if (conflict(v, e)) return true;
    }
  }
  return false;
}

int64_t read_write_once_pod_refs(const std::vector<std::string>& claims, const PodStorage& other) {
  int64_t n = 0;
  for (const std::string& key : other.claim_keys) {
    const std::string_view name = std::string_view(key).substr(key.find('/') + 1);
    n += std::find(claims.begin(), claims.end(), name) != claims.end();
  }
  return n;
}

}  // namespace tightpack::plugins
