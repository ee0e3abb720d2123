// Why a pod fits nowhere, as data beside kube-scheduler's FailedScheduling
// text: which taints it does not tolerate and on how many nodes, which
// resources are short and the most any such node has free, how many nodes its
// node selector/affinity excludes, what no node offers at all. The sidebar
// advises from these; it never reads the engine's English.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/model.hpp"

namespace tightpack {

struct UnschedulableFacts {
  struct Taint {
    std::string taint;               // as kubectl prints it: "dask=worker:NoSchedule"
    int64_t nodes = 0;               // nodes TaintToleration rejected that carry it
    std::vector<std::string> pools;  // their pools, by name
  };
  // Every NoSchedule/NoExecute taint the pod does not tolerate on the nodes
  // TaintToleration rejected (a node may carry several; all must be tolerated).
  std::vector<Taint> untolerated_taints;

  struct Shortfall {
    std::string resource;             // "cpu", "memory", "nvidia.com/gpu", ...
    int64_t requested = 0;            // millicores for cpu, bytes for memory
    int64_t largest_free = 0;         // on the node with most of it free
    std::string node;                 // that node
    std::optional<std::string> pool;  // and its pool
  };
  // The resources NodeResourcesFit found short, on the nodes it rejected
  // (which passed every filter before it: taints, affinity, ports).
  std::vector<Shortfall> insufficient;

  int64_t node_affinity_mismatch = 0;  // nodes NodeAffinity rejected
  std::vector<std::string> unoffered;  // extended resources the pod asks for that no node has
};

// From `d`, the decision for the pod in the cluster's state; `pool_of` names
// a node's pool (null: none).
UnschedulableFacts unschedulable_facts(const PodPlan& plan, const Cluster& c, const Decision& d,
                                       const Pod& pod,
                                       const std::function<const std::string*(NodeIndex)>& pool_of);

}  // namespace tightpack
