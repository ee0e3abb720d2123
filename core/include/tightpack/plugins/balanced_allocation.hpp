// NodeResourcesBalancedAllocation: how much placing the pod improves the
// balance of the node's requested/allocatable fractions.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "tightpack/framework/plugin.hpp"
#include "tightpack/go_int.hpp"
#include "tightpack/plugins/normalize.hpp"
#include "tightpack/plugins/resource_allocation.hpp"

namespace tightpack::plugins {

// The one place the engine uses floating point: kube-scheduler computes this
// score in float64, and its truncation lands on different integers than exact
// arithmetic would (e.g. (1 - 0.1) * 100 = 89.99…). IEEE-754 double +, −, ×, ÷
// and sqrt are correctly rounded on x86-64 and in WebAssembly alike; the build
// disables FMA contraction (-ffp-contract=off) so the operations stay these.
// balancedResourceScore: 100 × (1 − standard deviation of the fractions).
inline int64_t balance_score(const int64_t* requested, const int64_t* allocatable, size_t count) {
  double fractions[16];
  size_t n = 0;
  double total = 0;
  for (size_t i = 0; i < count && n < 16; ++i) {
    if (allocatable[i] == 0) continue;
    double f = static_cast<double>(requested[i]) / static_cast<double>(allocatable[i]);
    if (f > 1) f = 1;
    total += f;
    fractions[n++] = f;
  }
  double std_dev = 0;
  if (n == 2) {
    std_dev = std::fabs((fractions[0] - fractions[1]) / 2);
  } else if (n > 2) {
    double mean = total / static_cast<double>(n);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum = sum + (fractions[i] - mean) * (fractions[i] - mean);
    std_dev = std::sqrt(sum / static_cast<double>(n));
  }
  // A wrapped negative request makes the deviation huge and the product leave
  // int64's range: Go's conversion result there, not UB.
  return go_int64((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

// balancedResourceScorer since kubernetes#135573 (v1.36): the change in
// balance, `requested` with the pod and `allocated` without it, mapped back to
// [50, 100] so that a pod that leaves the balance as it was scores about 75.
// Before, the score was balance_score(requested) alone (the 1.26 corpus).
inline int64_t balanced_allocation_score(const int64_t* requested, const int64_t* allocated,
                                         const int64_t* allocatable, size_t count) {
  const int64_t with_pod = balance_score(requested, allocatable, count);
  const int64_t without_pod = balance_score(allocated, allocatable, count);
  // Integer division truncates toward zero in Go and C++ alike; the sums wrap
  // in Go only for the absurd scores of wrapped requests.
  return go_add(kMaxNodeScore / 2,
                go_div(go_sub(go_add(kMaxNodeScore / 2, with_pod), without_pod), 2));
}

struct BalancedAllocationPlugin {
  static constexpr Plugin kId = Plugin::NodeResourcesBalancedAllocation;
  struct State {
    ScoredResources scored;  // none in a first-fit plan
    // PreScore skips a best-effort pod (v1.33 on): every node scores 0.
    bool skip = false;
    bool scores_the_change = true;  // kube_release::balanced_scores_the_change
    bool sidecars_summed = true;    // kube_release::nonzero_sums_sidecars
  };
  static State prepare(const PlanContext& ctx);
  static int64_t score(const State& s, const Cluster& c, NodeIndex n) {
    if (s.skip) return 0;
    int64_t requested[kMaxScoredResources], allocatable[kMaxScoredResources],
        allocated[kMaxScoredResources];
    resource_pairs(c, n, s.scored, false, s.sidecars_summed, requested, allocatable, allocated);
    if (!s.scores_the_change) return balance_score(requested, allocatable, s.scored.size());
    return balanced_allocation_score(requested, allocated, allocatable, s.scored.size());
  }
};

}  // namespace tightpack::plugins
