#include "tightpack/plugins/volume_restrictions.hpp"

#include <algorithm>

#include "tightpack/kube_release.hpp"

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

VolumeRestrictionsPlugin::State VolumeRestrictionsPlugin::prepare(const PlanContext& ctx) {
  State s;
  if (ctx.pod.volumes.empty() || !ctx.profile.filter_enabled(kId)) return s;
  auto pre = volume_restrictions_prefilter(ctx.cluster.storage(), ctx.pod);
  if (pre.rejection) s.failure = PreFilterFailure{false, std::move(*pre.rejection)};
  s.disks = std::move(pre.disks);
  s.ns = ctx.pod.ns;
  s.read_write_once_pod = std::move(pre.read_write_once_pod);
  return s;
}

NodeStatus VolumeRestrictionsPlugin::filter(const State& s, const Cluster& c, NodeIndex n,
                                            const Relief* relief) {
  const auto& pods = c.pods_on(n);
  for (size_t k = 0; k < pods.size(); ++k) {
    if (!pods[k].storage || (relief && std::find(relief->positions.begin(), relief->positions.end(),
                                                 k) != relief->positions.end())) {
      continue;
    }
    if (disks_conflict(s.disks, *pods[k].storage)) return NodeStatus{Code::Unschedulable, kId};
  }
  return {};
}

int64_t VolumeRestrictionsPlugin::read_write_once_pod_in_use(const State& s, const Cluster& c) {
  int64_t in_use = 0;
  for (const std::string& name : s.read_write_once_pod)
    in_use += c.claim_users(s.ns + "/" + name) > 0;
  return in_use;
}

std::optional<NodeStatus> VolumeRestrictionsPlugin::domain_filter(const State& s, const Cluster& c,
                                                                  NodeIndex n,
                                                                  const Relief* relief) {
  // Less a preemption's victims.
  int64_t conflicting = read_write_once_pod_in_use(s, c);
  if (relief && conflicting > 0) {
    const auto& pods = c.pods_on(n);
    for (size_t k : relief->positions) {
      if (pods[k].storage)
        conflicting -= read_write_once_pod_refs(s.read_write_once_pod, *pods[k].storage);
    }
  }
  if (conflicting == 0) return std::nullopt;
  return NodeStatus{Code::Unschedulable, kId, -1, 1};  // detail 1: the ReadWriteOncePod part
}

std::vector<std::string> VolumeRestrictionsPlugin::reasons(const State&, const Cluster&, NodeIndex,
                                                           const NodeStatus& status,
                                                           const ReasonContext& ctx) {
  if (status.detail != 1) return {kDiskConflictReason};
  return {kube_release::volume_reasons_reworded(ctx.kube_minor) ? kReadWriteOncePodReason
                                                                : kReadWriteOncePodReasonV130};
}

}  // namespace tightpack::plugins
