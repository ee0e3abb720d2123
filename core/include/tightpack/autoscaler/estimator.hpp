// cluster-autoscaler's estimator package: how many nodes of a template the pods need.
#pragma once

#include <cstdint>
#include <vector>

#include "tightpack/autoscaler/node_template.hpp"
#include "tightpack/error.hpp"
#include "tightpack/model.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::autoscaler {

// calculatePodScore: cpu/allocatable_cpu + memory/allocatable_memory of the
// template, over container requests.
double estimator_score(const Pod& pod, const Node& template_node);

struct Estimate {
  int64_t node_count = 0;         // new nodes that received pods
  std::vector<size_t> scheduled;  // indices into the input pods, in packing order
};

// The estimator's limiter (estimator/threshold_based_limiter.go with the
// thresholds core/autoscaler.go gives it): --max-nodes-per-scaleup, the
// group's room (max size − target size, sng_capacity_threshold.go; similar
// groups count only with --balance-similar-node-groups, off by default) and
// the cluster's (--max-nodes-total − nodes incl. upcoming,
// cluster_capacity_threshold.go), the smallest positive one; −1 when a
// threshold leaves no room at all. kubernetes/autoscaler#5917 (CA 1.28) added
// the last two: before, the estimate ignored the group's max size.
inline constexpr int64_t kMaxNodesPerScaleUp = 1000;
int64_t estimation_limit(int64_t max_size, int64_t target_size, int64_t max_nodes_total,
                         int64_t current_nodes);

// BinpackingNodeEstimator: largest pods first onto fresh copies of the
// template, round-robin over the copies opened (from a fresh start: no other
// placement came before), at most `max_nodes` of them (−1: none). Once the limiter refuses
// a node, the pods left still try the nodes already opened. `classes`, when
// given, is aligned with `pods`: pods of one class differ only by name and
// share one PodPlan.
Result<Estimate> estimate(const NodeTemplate& t, const std::vector<const Pod*>& pods,
                          const Profile& profile, int64_t max_nodes = kMaxNodesPerScaleUp,
                          const std::vector<uint32_t>& classes = {});

}  // namespace tightpack::autoscaler
