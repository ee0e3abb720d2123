#include "tightpack/plugins/node_resources_fit.hpp"

#include <algorithm>

#include "tightpack/go_int.hpp"
#include "tightpack/plugins/normalize.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack::plugins {

bool FitRequest::requests_nothing() const {
  return cpu == 0 && memory == 0 && ephemeral == 0 && scalars.empty();
}

FitRequest fit_request(const Cluster& cluster, const PodUsage& usage, const FitArgs& args) {
  FitRequest r;
  r.cpu = usage.cpu;
  r.memory = usage.memory;
  r.ephemeral = usage.ephemeral;
  auto ignored = [&](const std::string& name) {
    if (!is_extended_resource(name)) return false;
    if (std::find(args.ignored_resources.begin(), args.ignored_resources.end(), name) !=
        args.ignored_resources.end()) {
      return true;
    }
    std::string group = name.substr(0, name.find('/'));
    return std::find(args.ignored_resource_groups.begin(), args.ignored_resource_groups.end(), group) !=
           args.ignored_resource_groups.end();
  };
  for (const auto& [idx, v] : usage.scalars) {
    r.scalars.push_back({cluster.scalar_name(idx), idx, v, ignored(cluster.scalar_name(idx))});
  }
  for (const auto& [name, v] : usage.unknown_scalars) r.scalars.push_back({name, UINT32_MAX, v, ignored(name)});
  // Go ranges over a map here, in random order; by name is the stable choice.
  std::sort(r.scalars.begin(), r.scalars.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return r;
}

bool fits(const Cluster& c, NodeIndex n, const FitRequest& r, const Relief* relief) {
  return check_fit(c, n, r, relief, [](const std::string&) { return false; });
}

std::vector<std::string> fit_reasons(const Cluster& c, NodeIndex n, const FitRequest& r, const Relief* relief) {
  std::vector<std::string> out;
  check_fit(c, n, r, relief, [&](const std::string& reason) {
    out.push_back(reason);
    return true;
  });
  return out;
}

int64_t least_requested_score(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  // Wraps in int64 as upstream's does (capacity above 2^63/100, or a wrapped
  // negative request); C++ would make that overflow UB.
  return go_mul(go_sub(capacity, requested), kMaxNodeScore) / capacity;
}

int64_t most_requested_score(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) requested = capacity;  // pods without requests count the defaults
  return go_mul(requested, kMaxNodeScore) / capacity;  // int64 wrap-around, as upstream
}

// helper.BuildBrokenLinearFunction over points scaled to 0..100.
int64_t broken_linear(const std::vector<ShapePoint>& shape, int64_t p) {
  constexpr int64_t kScale = kMaxNodeScore / 10;  // MaxCustomPriorityScore is 10
  for (size_t i = 0; i < shape.size(); ++i) {
    if (p <= shape[i].utilization) {
      if (i == 0) return shape[0].score * kScale;
      const auto& a = shape[i - 1];
      const auto& b = shape[i];
      return a.score * kScale + (b.score * kScale - a.score * kScale) * (p - a.utilization) /
                                    (b.utilization - a.utilization);
    }
  }
  return shape.back().score * kScale;
}

int64_t resource_allocation_score(const FitArgs& args, const int64_t* requested, const int64_t* allocatable,
                                  size_t count) {
  int64_t node_score = 0, weight_sum = 0;
  for (size_t i = 0; i < count; ++i) {
    if (allocatable[i] == 0) continue;
    int64_t weight = args.resources[i].weight;
    int64_t score = 0;
    switch (args.strategy) {
      case ScoringStrategy::LeastAllocated:
        score = least_requested_score(requested[i], allocatable[i]);
        break;
      case ScoringStrategy::MostAllocated:
        score = most_requested_score(requested[i], allocatable[i]);
        break;
      case ScoringStrategy::RequestedToCapacityRatio: {
        int64_t utilization = kMaxNodeScore;
        if (requested[i] <= allocatable[i]) {
          utilization = go_mul(requested[i], kMaxNodeScore) / allocatable[i];  // wraps as upstream
        }
        score = broken_linear(args.shape, utilization);
        if (score <= 0) continue;  // only positive scores enter the average
        break;
      }
    }
    node_score = go_add(node_score, go_mul(score, weight));  // wrapped scores stay wrapped
    weight_sum += weight;
  }
  if (weight_sum == 0) return 0;
  if (args.strategy == ScoringStrategy::RequestedToCapacityRatio) {
    // math.Round(float64(nodeScore) / float64(weightSum)): exact for these
    // small non-negative integers, rounding halves up.
    return (2 * node_score + weight_sum) / (2 * weight_sum);
  }
  return node_score / weight_sum;
}

}  // namespace tightpack::plugins
