// What bounds a scale-up after the expander: the group's max size and the
// cluster-wide resource limits (CA's scale-up resource manager).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tightpack/autoscaler/node_template.hpp"
#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/model.hpp"

namespace tightpack::autoscaler {

// The increase after the expander: capped to the group's max size.
int64_t capped_delta(int64_t estimated, int64_t target_size, int64_t max_size);

// What the cluster-wide resource limits leave for a scale-up: every group at
// its target size with its template's capacity, plus the nodes of no group.
struct ResourcesLeft {
  int64_t cores = 0;
  int64_t memory = 0;  // bytes
};
ResourcesLeft resources_left(const AutoscaleScenario& s, const std::vector<NodeTemplate>& templates,
                             const std::vector<int64_t>& target_sizes);

// One new node's capacity in the limits' units: whole cores (rounded up), bytes.
ResourcesLeft node_delta(const Node& template_node);

// "max cluster cpu limit reached" and the like when one more node would not
// fit the limits; empty when it would.
std::string limit_exceeded(const ResourcesLeft& left, const ResourcesLeft& per_node);

// The increase the limits allow for `delta` nodes of `per_node` each.
int64_t apply_resource_limits(int64_t delta, const ResourcesLeft& left,
                              const ResourcesLeft& per_node);

}  // namespace tightpack::autoscaler
