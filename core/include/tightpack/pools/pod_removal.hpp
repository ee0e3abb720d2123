// The pods a scale-down forecast takes away before it runs: a user's
// workers leaving. Three ways to name them, because the clients that retire
// Dask workers name them three ways: a label selector (a whole cluster), pod
// names (dask-gateway: a worker is named after its pod), and Deployment
// names (the dask-kubernetes operator: a worker is a one-replica Deployment,
// named after the worker, whose pods carry generated names).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/labels.hpp"

namespace tightpack::pools {

struct PodRemoval {
  std::optional<LabelSelector> selector;
  std::vector<std::string> pods;         // "namespace/name"
  std::vector<std::string> deployments;  // "namespace/name"

  bool empty() const { return !selector && pods.empty() && deployments.empty(); }
};

// A PodRemoval asked of every pod of a snapshot: its names hashed once (a
// scale(0) of a large Dask cluster names a thousand Deployments). Holds
// views into `removal`, which must outlive it.
class PodRemovalMatcher {
 public:
  explicit PodRemovalMatcher(const PodRemoval& removal);
  bool operator()(const autoscaler::CaPod& pod) const;

 private:
  const PodRemoval& removal_;
  std::unordered_set<std::string_view> pods_;
  std::unordered_set<std::string_view> deployments_;
};

// "namespace/name" of the Deployment whose ReplicaSet controls `pod`, or
// empty. The Deployment controller names a ReplicaSet `<deployment>-<hash>`
// and labels its pods pod-template-hash=<hash>, so the pod alone names its
// Deployment: no ReplicaSet object is needed, and a bare ReplicaSet (no
// such label, or a name that does not end in it) has none.
std::string deployment_of(const autoscaler::CaPod& pod);

// A "namespace/name" reference checked: one '/', neither side empty. The
// error names `what` and the value.
std::optional<std::string> object_key_error(const std::string& key, const std::string& what);

}  // namespace tightpack::pools
