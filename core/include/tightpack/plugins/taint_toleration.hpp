// TaintToleration: the filter (NoSchedule and NoExecute taints must be
// tolerated) and the score (count of untolerated PreferNoSchedule taints,
// normalised in reverse).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tightpack/framework/plugin.hpp"
#include "tightpack/model.hpp"

namespace tightpack::plugins {

// Index of the first NoSchedule/NoExecute taint no toleration tolerates, or -1
// (v1helper.FindMatchingUntoleratedTaint with DoNotScheduleTaintsFilterFunc).
int first_untolerated_taint(const std::vector<Taint>& taints,
                            const std::vector<Toleration>& tolerations);

// The filter's reason, the same for every taint since kubernetes#134740
// (v1.35, back-ported to 1.32-1.34): taint keys and values may be sensitive,
// so the message no longer names them. Explanations that do name the taint
// (scale-up predictions) keep first_untolerated_taint's index.
inline constexpr const char* kUntoleratedTaintReason = "node(s) had untolerated taint(s)";

// The reason before that change: the node's first untolerated taint,
// "node(s) had untolerated taint {key: value}" (kube_release::taint_reason_is_generic).
std::string untolerated_taint_reason(const Taint& taint);

// Tolerations with effect PreferNoSchedule or empty (getAllTolerationPreferNoSchedule).
std::vector<Toleration> prefer_no_schedule_tolerations(const std::vector<Toleration>& tolerations);

// countIntolerableTaintsPreferNoSchedule, given the tolerations above.
int64_t intolerable_prefer_no_schedule(const std::vector<Taint>& taints,
                                       const std::vector<Toleration>& prefer_tolerations);

struct TaintTolerationPlugin {
  static constexpr Plugin kId = Plugin::TaintToleration;
  // Per taint set of the cluster (nodes of a pool share one).
  struct State {
    std::vector<int> untolerated;  // first_untolerated_taint
    std::vector<int64_t> raw;      // the raw score
  };
  static State prepare(const PlanContext& ctx);
  static bool can_reject(const State&) { return true; }
  static NodeStatus filter(const State& s, const Cluster& c, NodeIndex n) {
    const int t = s.untolerated[c.taint_set(n)];
    if (t < 0) return {};
    NodeStatus status{Code::UnschedulableAndUnresolvable, kId};
    status.taint = static_cast<int16_t>(t);
    return status;
  }
  static int64_t score(const State& s, const Cluster& c, NodeIndex n) {
    return s.raw[c.taint_set(n)];
  }
  static std::vector<std::string> reasons(const State&, const Cluster& c, NodeIndex n,
                                          const NodeStatus& status, const ReasonContext& ctx);
};

}  // namespace tightpack::plugins
