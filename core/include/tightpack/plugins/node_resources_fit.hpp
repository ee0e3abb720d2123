// NodeResourcesFit: the filter (fitsRequest) and the three scoring strategies
// of the resource allocation scorer, in kube-scheduler's integer arithmetic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/plugin.hpp"
#include "tightpack/go_int.hpp"
#include "tightpack/kube_release.hpp"
#include "tightpack/plugins/normalize.hpp"
#include "tightpack/plugins/resource_allocation.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::plugins {

// A pod's requests as the filter checks them; scalar resources sorted by name.
struct FitRequest {
  int64_t cpu = 0, memory = 0, ephemeral = 0;
  struct Scalar {
    std::string name;
    uint32_t index;  // cluster scalar index, UINT32_MAX when no node offers it
    int64_t amount;
    bool ignored;  // ignoredResources / ignoredResourceGroups
  };
  std::vector<Scalar> scalars;
  bool requests_nothing() const;
};

FitRequest fit_request(const Cluster& cluster, const PodUsage& usage, const FitArgs& args);

// Calls on_insufficient(reason, unresolvable) for each resource that does not
// fit, in kube-scheduler's order (pods, cpu, memory, ephemeral-storage,
// scalars), and stops early when it returns false. Returns whether everything
// fits. `reason` is a callable that returns the text: a caller that only wants
// the verdict (fits, on every node of every decision) never builds a string.
// `unresolvable` is InsufficientResource.Unresolvable: the pod requests more
// than the node's allocatable, which no eviction can cure (kubernetes#131345,
// v1.34); "Too many pods" never is.
template <class OnInsufficient>
bool check_fit(const Cluster& c, NodeIndex n, const FitRequest& r, const Relief* relief,
               OnInsufficient&& on_insufficient);

// The filter's status code: fitsRequest's reasons make it Unschedulable, and
// UnschedulableAndUnresolvable when one of them is unresolvable.
enum class FitVerdict : uint8_t { kFits, kInsufficient, kUnresolvable };
FitVerdict fit_verdict(const Cluster& c, NodeIndex n, const FitRequest& r,
                       const Relief* relief = nullptr);

bool fits(const Cluster& c, NodeIndex n, const FitRequest& r, const Relief* relief = nullptr);
std::vector<std::string> fit_reasons(const Cluster& c, NodeIndex n, const FitRequest& r,
                                     const Relief* relief = nullptr);

// The node's score under `args` given per-resource (requested with the pod,
// allocatable) pairs; defined below.
inline int64_t resource_allocation_score(const FitArgs& args, const int64_t* requested,
                                         const int64_t* allocatable, size_t count);

struct NodeResourcesFitPlugin {
  static constexpr Plugin kId = Plugin::NodeResourcesFit;
  struct State {
    FitRequest request;  // the filter's
    // The code of a request beyond the node's allocatable (kubernetes#131345).
    Code beyond_allocatable = Code::Unschedulable;
    // The score's: the profile's strategy (the plan keeps the profile) and
    // the scored resources, none in a first-fit plan.
    const FitArgs* args = nullptr;
    ScoredResources scored;
    bool sidecars_summed = true;  // kube_release::nonzero_sums_sidecars
  };
  static State prepare(const PlanContext& ctx);
  // Inline, as the score: they run for every node of every decision.
  static NodeStatus filter(const State& s, const Cluster& c, NodeIndex n, const Relief* relief) {
    if (relief) {  // a preemption dry run asks only whether the pod fits
      if (fits(c, n, s.request, relief)) return {};
      return NodeStatus{Code::Unschedulable, kId};
    }
    switch (fit_verdict(c, n, s.request)) {
      case FitVerdict::kFits:
        return {};
      case FitVerdict::kInsufficient:
        return NodeStatus{Code::Unschedulable, kId};
      case FitVerdict::kUnresolvable:
        return NodeStatus{s.beyond_allocatable, kId};
    }
    return {};
  }
  static int64_t score(const State& s, const Cluster& c, NodeIndex n) {
    int64_t requested[kMaxScoredResources], allocatable[kMaxScoredResources];
    resource_pairs(c, n, s.scored, true, s.sidecars_summed, requested, allocatable);
    return resource_allocation_score(*s.args, requested, allocatable, s.scored.size());
  }
  static std::vector<std::string> reasons(const State& s, const Cluster& c, NodeIndex n,
                                          const NodeStatus&, const ReasonContext& ctx) {
    return fit_reasons(c, n, s.request, ctx.relief);
  }
};

// ------------------------------------------------------------------ impl

template <class OnInsufficient>
bool check_fit(const Cluster& c, NodeIndex n, const FitRequest& r, const Relief* relief,
               OnInsufficient&& on_insufficient) {
  bool ok = true;
  auto report = [&](auto&& reason, bool unresolvable) {
    ok = false;
    return on_insufficient(reason, unresolvable);
  };
  int64_t pods = c.pod_count()[n] - (relief ? relief->pods : 0);
  if (pods + 1 > c.allowed_pods()[n] &&
      !report([] { return std::string("Too many pods"); }, false)) {
    return false;
  }
  if (r.requests_nothing()) return ok;
  // Allocatable − requested in int64 as fitsRequest computes it: a wrapped
  // (negative) request sum can push it past int64, where Go wraps and C++ is UB.
  int64_t cpu_used = go_sub(c.req_cpu()[n], relief ? relief->cpu : 0);
  if (r.cpu > 0 && r.cpu > go_sub(c.alloc_cpu()[n], cpu_used) &&
      !report([] { return std::string("Insufficient cpu"); }, r.cpu > c.alloc_cpu()[n])) {
    return false;
  }
  int64_t mem_used = go_sub(c.req_memory()[n], relief ? relief->memory : 0);
  if (r.memory > 0 && r.memory > go_sub(c.alloc_memory()[n], mem_used) &&
      !report([] { return std::string("Insufficient memory"); }, r.memory > c.alloc_memory()[n])) {
    return false;
  }
  int64_t eph_used = go_sub(c.req_ephemeral()[n], relief ? relief->ephemeral : 0);
  if (r.ephemeral > 0 && r.ephemeral > go_sub(c.alloc_ephemeral()[n], eph_used) &&
      !report([] { return std::string("Insufficient ephemeral-storage"); },
              r.ephemeral > c.alloc_ephemeral()[n])) {
    return false;
  }
  for (const auto& s : r.scalars) {
    if (s.amount == 0 || s.ignored) continue;
    int64_t free = 0, allocatable = 0;
    if (s.index != UINT32_MAX) {
      int64_t used = c.req_scalar(s.index)[n];
      if (relief) {
        for (const auto& [idx, v] : relief->scalars) {
          if (idx == s.index) used = go_sub(used, v);
        }
      }
      allocatable = c.alloc_scalar(s.index)[n];
      free = go_sub(allocatable, used);
    }
    if (s.amount > free &&
        !report([&] { return "Insufficient " + s.name; }, s.amount > allocatable)) {
      return false;
    }
  }
  return ok;
}

// Scorers, inline because they run for every feasible node of every decision:
// the per-resource scores of each strategy, and resource_allocation_score,
// the node's score under `args` given per-resource (requested incl. the pod,
// allocatable) pairs, where a pair with allocatable 0 is skipped.

inline int64_t least_requested_score(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  // Wraps in int64 as upstream's does (capacity above 2^63/100, or a wrapped
  // negative request); C++ would make that overflow UB.
  return go_div(go_mul(go_sub(capacity, requested), kMaxNodeScore), capacity);
}

inline int64_t most_requested_score(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) requested = capacity;  // pods without requests count the defaults
  return go_div(go_mul(requested, kMaxNodeScore), capacity);  // int64 wrap-around, as upstream
}

// helper.BuildBrokenLinearFunction over points scaled to 0..100.
inline int64_t broken_linear(const std::vector<ShapePoint>& shape, int64_t p) {
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

inline int64_t resource_allocation_score(const FitArgs& args, const int64_t* requested,
                                         const int64_t* allocatable, size_t count) {
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
          utilization =
              go_div(go_mul(requested[i], kMaxNodeScore), allocatable[i]);  // wraps as upstream
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
  return go_div(node_score, weight_sum);
}

}  // namespace tightpack::plugins
