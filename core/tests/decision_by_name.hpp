// A decision as node names, for comparing two clusters that hold the same
// nodes in another order: each filtered node's status code and plugin, each
// feasible node's total score, the tie set and the FailedScheduling text.
#pragma once

#include <map>
#include <string>

#include "tightpack/cluster.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/profile.hpp"

namespace tightpack::testing {

inline std::map<std::string, std::string> decision_by_name(const Cluster& c, const Pod& pod) {
  static const Profile profile = default_profile();
  std::map<std::string, std::string> out;
  auto plan = PodPlan::make(c, profile, pod);
  PlanScratch scratch;
  if (!plan) return {{"error", plan.error().what()}};
  const Decision d = decide(*plan, c, scratch);
  for (size_t i = 0; i < d.filtered.size(); ++i) {
    out[c.name(d.filtered[i])] = std::to_string(static_cast<int>(d.statuses[i].code)) + "/" +
                                 std::to_string(static_cast<int>(d.statuses[i].plugin));
  }
  for (size_t j = 0; j < d.feasible.size(); ++j)
    out[c.name(d.feasible[j])] += " " + std::to_string(d.scores[j].total);
  for (NodeIndex n : d.top) out[c.name(n)] += " top";
  out["message"] = d.message;
  return out;
}

}  // namespace tightpack::testing
