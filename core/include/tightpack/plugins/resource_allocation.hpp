// What NodeResourcesFit's and BalancedAllocation's scores share, as
// kube-scheduler's resourceAllocationScorer does: where a scored resource's
// numbers come from (calculateResourceAllocatableRequest), resolved once per
// pod, and the (requested, allocatable) pairs of a node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/go_int.hpp"
#include "tightpack/model.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::plugins {

inline constexpr size_t kMaxScoredResources = 16;  // profile.cpp rejects more

struct ResourceColumn {
  enum Kind : uint8_t { kCpu, kMemory, kEphemeral, kScalar, kNone } kind = kNone;
  uint32_t scalar = 0;
};

// The column of a resource named in the profile's scoring arguments; kNone
// for a scalar resource no node offers.
ResourceColumn resource_column(const Cluster& c, const std::string& name);

// A scored resource list and the pod's request of each.
struct ScoredResources {
  std::vector<ResourceColumn> columns;
  std::vector<int64_t> pod_request;
  size_t size() const { return columns.size(); }
};
// `non_zero`: the requests with kube-scheduler's defaults for containers
// that request no cpu or memory (NodeResourcesFit's score), or as written
// (BalancedAllocation's).
ScoredResources scored_resources(const Cluster& c, const Pod& pod,
                                 const std::vector<ResourceSpec>& resources, bool non_zero);

// Per scored resource: the node's requests with the pod, its allocatable,
// and, when `allocated` is given, its requests without the pod. Inline: it
// runs for every feasible node of every decision.
inline void resource_pairs(const Cluster& c, NodeIndex n, const ScoredResources& r, bool non_zero,
                           bool sidecars_summed, int64_t* requested, int64_t* allocatable,
                           int64_t* allocated = nullptr) {
  for (size_t i = 0; i < r.columns.size(); ++i) {
    int64_t node = 0;
    requested[i] = allocatable[i] = 0;
    const int64_t pod = r.pod_request[i];
    switch (r.columns[i].kind) {
      case ResourceColumn::kCpu:
        allocatable[i] = c.alloc_cpu()[n];
        node = non_zero ? (sidecars_summed ? c.nz_cpu()[n] : c.nz_cpu_v130()[n]) : c.req_cpu()[n];
        break;
      case ResourceColumn::kMemory:
        allocatable[i] = c.alloc_memory()[n];
        node = non_zero ? (sidecars_summed ? c.nz_memory()[n] : c.nz_memory_v130()[n])
                        : c.req_memory()[n];
        break;
      case ResourceColumn::kEphemeral:
        allocatable[i] = c.alloc_ephemeral()[n];
        node = c.req_ephemeral()[n];
        break;
      case ResourceColumn::kScalar:
        // A scalar resource the pod does not request is left out of the score.
        if (pod == 0 || !c.has_scalar(r.columns[i].scalar, n)) break;
        allocatable[i] = c.alloc_scalar(r.columns[i].scalar)[n];
        node = c.req_scalar(r.columns[i].scalar)[n];
        break;
      case ResourceColumn::kNone:
        break;
    }
    requested[i] = go_add(node, pod);
    if (allocated) allocated[i] = node;
  }
}

}  // namespace tightpack::plugins
