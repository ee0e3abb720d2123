#include "tightpack/plugins/taint_toleration.hpp"

#include "tightpack/kube_release.hpp"

namespace tightpack::plugins {

int first_untolerated_taint(const std::vector<Taint>& taints,
                            const std::vector<Toleration>& tolerations) {
  for (size_t i = 0; i < taints.size(); ++i) {
    const Taint& t = taints[i];
    if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
    if (!tolerations_tolerate(tolerations, t)) return static_cast<int>(i);
  }
  return -1;
}

std::string untolerated_taint_reason(const Taint& taint) {
  return "node(s) had untolerated taint {" + taint.key + ": " + taint.value + "}";
}

std::vector<Toleration> prefer_no_schedule_tolerations(const std::vector<Toleration>& tolerations) {
  std::vector<Toleration> out;
  for (const auto& t : tolerations) {
    if (t.effect.empty() || t.effect == "PreferNoSchedule") out.push_back(t);
  }
  return out;
}

int64_t intolerable_prefer_no_schedule(const std::vector<Taint>& taints,
                                       const std::vector<Toleration>& prefer_tolerations) {
  int64_t count = 0;
  for (const auto& t : taints) {
    if (t.effect == "PreferNoSchedule" && !tolerations_tolerate(prefer_tolerations, t)) ++count;
  }
  return count;
}

// Both per taint set, computed when the plan is made: clusters have a few
// taint sets (one per pool), so the filter and the score of a node are a lookup.
TaintTolerationPlugin::State TaintTolerationPlugin::prepare(const PlanContext& ctx) {
  const Cluster& c = ctx.cluster;
  const std::vector<Toleration> prefer = prefer_no_schedule_tolerations(ctx.pod.tolerations);
  State s;
  s.untolerated.resize(c.taint_set_count());
  s.raw.resize(c.taint_set_count());
  for (uint32_t set = 0; set < c.taint_set_count(); ++set) {
    s.untolerated[set] = first_untolerated_taint(c.taints_of_set(set), ctx.pod.tolerations);
    s.raw[set] = intolerable_prefer_no_schedule(c.taints_of_set(set), prefer);
  }
  return s;
}

std::vector<std::string> TaintTolerationPlugin::reasons(const State&, const Cluster& c, NodeIndex n,
                                                        const NodeStatus& status,
                                                        const ReasonContext& ctx) {
  if (kube_release::taint_reason_is_generic(ctx.kube_minor)) return {kUntoleratedTaintReason};
  return {untolerated_taint_reason(c.taints_of_set(c.taint_set(n))[status.taint])};
}

}  // namespace tightpack::plugins
