// VolumeBinding's PreBind for the in-cluster scheduler, as kube-scheduler's
// volume binder does it (pkg/scheduler/framework/plugins/volumebinding,
// BindPodVolumes): before a pod with claims that wait for their first
// consumer is bound, each volume chosen for a claim gets the claim as its
// claimRef and each claim to provision gets the node as its
// volume.kubernetes.io/selected-node; then the binding waits, up to
// bindTimeoutSeconds, for the PV controller and the provisioner to bind
// every claim. There is no API rollback when that fails (there is none
// upstream either): the provisioner drops selected-node when it cannot
// provision there, and the pod is tried again.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "daemon/object_store.hpp"
#include "kube/api_client.hpp"
#include "tightpack/model.hpp"
#include "tightpack/plugins/volume_binding.hpp"

namespace tightpack::daemon {

using plugins::BindingPlan;

// The API writes of a plan (bindAPIUpdate): each object read fresh and
// written with its resourceVersion as a precondition, so that a volume
// bound to another claim meanwhile is never taken.
struct WrittenBindings {
  std::string error;  // "" when all went through
  // The resourceVersion each write left (checkBindings waits until the
  // watch shows at least that).
  std::map<std::string, uint64_t> claims, volumes;
};
// `claim_uids`: the uid of each statically bound claim (namespace/name), for
// the volume's claimRef.
WrittenBindings write_volume_bindings(kube::ApiClient& api, const BindingPlan& plan,
                                      const std::map<std::string, std::string>& claim_uids,
                                      const std::string& node, std::chrono::milliseconds budget);

// One pod's wait for its claims (checkBindings), judged on the watch cache.
class VolumeBindingWait {
 public:
  enum class State { Waiting, Bound, Failed };
  struct Check {
    State state = State::Waiting;
    std::string error;  // checkBindings' text, for Failed (the caller adds "binding volumes: ")
  };

  VolumeBindingWait(BindingPlan plan, std::string node, WrittenBindings written,
                    std::chrono::steady_clock::time_point deadline)
      : plan_(std::move(plan)),
        node_(std::move(node)),
        written_(std::move(written)),
        deadline_(deadline) {}

  // Called once the API writes went through, then whenever the cache may
  // have moved; `node` is the chosen node as the cache holds it (null: gone).
  Check check(const ObjectStore& objects, const Node* node,
              std::chrono::steady_clock::time_point now);

  const std::string& node() const { return node_; }

 private:
  BindingPlan plan_;
  std::string node_;
  WrittenBindings written_;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace tightpack::daemon
