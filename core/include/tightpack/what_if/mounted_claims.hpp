// The persistent volume claims a what-if pod mounts, as the API server and
// kube-scheduler's volume plugins see them: the class a claim has (the
// default one when it names none: DefaultStorageClass), when its disk is made
// (the class' volumeBindingMode), and the volume it is bound to with the zones
// that volume allows. The sidebar words these ("your home claim claim-alice,
// on a disk in us-central1-b: …"); the rules stay here, where the engine that
// places the pod reads the same objects.
#pragma once

#include <boost/json/array.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/model.hpp"

namespace tightpack {

struct MountedClaim {
  std::string ns, name;
  // The cluster lists the claim: without it VolumeBinding leaves the pod
  // Pending and nothing below is known.
  bool listed = false;
  std::optional<std::string> storage_class;  // none: no class ("")
  // The class is the cluster's default one, given because the claim named none.
  bool default_class = false;
  // The class' volumeBindingMode is WaitForFirstConsumer (true) or Immediate
  // (false); none when the claim has no class or the cluster lists no such class.
  std::optional<bool> wait_for_first_consumer;
  std::optional<std::string> volume;  // spec.volumeName
  // The cluster lists that volume: the claim's disk exists.
  bool bound = false;
  // The zones the volume's required node affinity allows: the values of its
  // In expressions on a zone key (topology.kubernetes.io/zone, the beta key,
  // and CSI drivers' own: topology.gke.io/zone, topology.ebs.csi.aws.com/zone,
  // …), in order, each once. Empty: any node can mount it, as far as zones go.
  std::vector<std::string> zones;
  // How many of the cluster's nodes the volume's required node affinity
  // admits (volume.CheckNodeAffinity); none when it has none, and any node
  // may mount it. A local volume's names one node by hostname.
  std::optional<size_t> mountable_nodes;

  bool operator==(const MountedClaim&) const = default;
};

// A StorageClass' volumeBindingMode as the API spells it.
const char* binding_mode_name(bool wait_for_first_consumer);

// One per persistentVolumeClaim volume of `pod`, in the pod's order (a
// generic ephemeral volume's claim is made with the pod: not listed here).
std::vector<MountedClaim> mounted_claims(const Cluster& cluster, const Pod& pod);

// [{"namespace", "name", "listed", "storageClass", "defaultClass",
//   "bindingMode": "WaitForFirstConsumer" | "Immediate" | null, "volume",
//   "bound", "zones", "mountableNodes": N | null}]
boost::json::array encode_mounted_claims(const std::vector<MountedClaim>& claims);

}  // namespace tightpack
