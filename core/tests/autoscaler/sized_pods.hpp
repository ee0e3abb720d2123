// Pods of a given size, and the pointer lists the estimator and expanders take:
// what the autoscaler's per-rule tests build their inputs from.
#pragma once

#include <string>
#include <vector>

#include "test_util.hpp"

namespace tightpack::autoscaler {

inline Pod sized(std::string name, int64_t milli_cpu, int64_t memory) {
  Pod p = testing::make_pod(std::move(name));
  p.containers = {
      testing::make_container(testing::resources({{"cpu", milli_cpu}, {"memory", memory}}))};
  return p;
}

inline std::vector<const Pod*> pointers(const std::vector<Pod>& pods) {
  std::vector<const Pod*> out;
  for (const Pod& p : pods) out.push_back(&p);
  return out;
}

}  // namespace tightpack::autoscaler
