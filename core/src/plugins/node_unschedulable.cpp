#include "tightpack/plugins/node_unschedulable.hpp"

namespace tightpack::plugins {

bool tolerates_unschedulable(const std::vector<Toleration>& tolerations) {
  return tolerations_tolerate(tolerations,
                              Taint{"node.kubernetes.io/unschedulable", "", "NoSchedule"});
}

NodeUnschedulablePlugin::State NodeUnschedulablePlugin::prepare(const PlanContext& ctx) {
  if (!ctx.profile.filter_enabled(kId) || tolerates_unschedulable(ctx.pod.tolerations))
    return State{};
  bool any_cordoned = ctx.first_fit;
  for (NodeIndex i = 0; i < ctx.cluster.size() && !any_cordoned; ++i)
    any_cordoned = ctx.cluster.node(i).unschedulable;
  return State{any_cordoned};
}

}  // namespace tightpack::plugins
