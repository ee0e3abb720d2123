// What one thread's questions to a plan remember (framework.hpp): the plan
// is immutable, its memos are the asker's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tightpack/framework/node_status.hpp"
#include "tightpack/framework/plugin_types.hpp"
#include "tightpack/framework/score_pipeline.hpp"

namespace tightpack {

// The filters that read the node and its own pods, with the position of the
// first that fails in the profile's filter order (UINT8_MAX when none does).
struct NodeVerdict {
  uint8_t position = UINT8_MAX;
  NodeStatus status;
};

template <class T>
concept HasDomainFilter = requires(const typename T::State& s) {
  T::domain_filters(s);
};
template <class T>
concept HasCounts = requires {
  typename T::Counts;
};

// How many plugins of the list have a filter that reads whole topology domains.
inline constexpr size_t kDomainFilterPlugins = [] {
  size_t n = 0;
  CycleState::for_each([&](auto tag) {
    if constexpr (HasDomainFilter<typename decltype(tag)::type>) ++n;
  });
  return n;
}();

// What one thread's questions to a plan remember between calls: the Counts
// of the plugins that read whole topology domains (framework/plugin.hpp),
// brought up to date from the nodes whose pods changed, and decide()'s
// verdicts and pod-dependent scores per node generation, so that after a
// placement only that node is recomputed. A scratch asked about another
// plan than the last forgets what it had: keep one beside each plan.
class PlanScratch {
 public:
  struct Nodes {
    uint64_t instance = 0;
    std::vector<uint32_t> generation;  // UINT32_MAX: nothing remembered
    std::vector<NodeVerdict> verdict;
    std::vector<uint32_t> score_generation;
    std::vector<NodePodsScores> scores;
  };

 private:
  friend class PodPlan;
  void serve(uint64_t plan) {
    if (plan_ == plan) return;
    plan_ = plan;
    counts_.clear();
    nodes_ = Nodes{};
  }
  uint64_t plan_ = 0;  // 0: none yet
  ScratchCounts counts_;
  Nodes nodes_;
};

}  // namespace tightpack
