#include "tightpack/plugins/node_unschedulable.hpp"

namespace tightpack::plugins {

bool tolerates_unschedulable(const std::vector<Toleration>& tolerations) {
  return tolerations_tolerate(tolerations,
                              Taint{"node.kubernetes.io/unschedulable", "", "NoSchedule"});
}

}  // namespace tightpack::plugins
