#include "tightpack/plugins/taint_toleration.hpp"

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

}  // namespace tightpack::plugins
