#include "tightpack/plugins/node_affinity.hpp"

#include <algorithm>

#include "tightpack/framework/per_node.hpp"

namespace tightpack::plugins {

NodeNameRestriction node_name_restriction(const Pod& pod) {
  NodeNameRestriction out;
  if (!pod.node_affinity.required || pod.node_affinity.required->empty()) return out;
  std::set<std::string> names;
  for (const auto& term : *pod.node_affinity.required) {
    std::optional<std::set<std::string>> term_names;
    for (const auto& r : term.match_fields) {
      if (r.key != "metadata.name" || r.op != "In") continue;
      std::set<std::string> s(r.values.begin(), r.values.end());
      if (!term_names) {
        term_names = std::move(s);
      } else {
        std::set<std::string> both;
        std::set_intersection(term_names->begin(), term_names->end(), s.begin(), s.end(),
                              std::inserter(both, both.begin()));
        term_names = std::move(both);
      }
    }
    if (!term_names) return out;  // this term allows every node: terms are ORed
    names.insert(term_names->begin(), term_names->end());
  }
  // A term whose name sets do not intersect adds no node; current
  // NodeAffinity.PreFilter reports a conflict only when no term adds any.
  if (names.empty()) {
    out.conflict = true;
    return out;
  }
  out.names = std::move(names);
  return out;
}

Result<NodeAffinityPlugin::State> NodeAffinityPlugin::prepare(const PlanContext& ctx) {
  const Cluster& c = ctx.cluster;
  State s;
  if (ctx.profile.filter_enabled(kId)) {
    s.restriction = node_name_restriction(ctx.pod);
    const RequiredNodeAffinity& required = ctx.required;
    if (!required.trivial() && ctx.first_fit) {
      s.required = required;
    } else if (!required.trivial()) {
      std::vector<std::string> keys;
      required.collect_keys(keys);
      const std::vector<int64_t> match =
          per_node_by_labels(c, keys, required.uses_fields(),
                             [&](NodeIndex i) { return int64_t{required.matches(c, i)}; });
      s.match.assign(match.begin(), match.end());
    }
  }
  if (ctx.profile.score_weight(kId) <= 0) return s;
  PreferredNodeAffinity preferred(ctx.pod);
  if (preferred.first_invalid_term() >= 0) {
    return Error{"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[" +
                     std::to_string(preferred.first_invalid_term()) + "]",
                 "pod " + ctx.pod.key() +
                     ": the preferred node affinity term does not parse, so kube-scheduler "
                     "fails to schedule the pod (NodeAffinity PreScore)"};
  }
  if (ctx.first_fit || preferred.empty()) return s;
  preferred.bind(c);
  std::vector<std::string> keys;
  preferred.collect_keys(keys);
  s.preferred = per_node_by_labels(c, keys, preferred.uses_fields(),
                                   [&](NodeIndex i) { return preferred.score(c, i); });
  return s;
}

}  // namespace tightpack::plugins
