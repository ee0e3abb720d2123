#include "tightpack/plugins/cohort.hpp"

#include <algorithm>

namespace tightpack::plugins {

std::string cohort_of(const Pod& pod) {
  for (std::string_view key : kCohortLabels) {
    if (const std::string* v = find_label(pod.labels, key)) return std::string(key) + "=" + *v;
  }
  return {};
}

int64_t cohort_score(int64_t cohort_cpu, int64_t cohort_memory, int64_t alloc_cpu,
                     int64_t alloc_memory) {
  // Shares in whole percent; requests beyond allocatable (possible for bound
  // pods) count as a full node. Divisions of non-negative values only.
  auto share = [](int64_t used, int64_t alloc) -> int64_t {
    if (alloc <= 0 || used <= 0) return 0;
    if (used >= alloc) return 100;
    return static_cast<int64_t>((static_cast<__int128>(used) * 100) / alloc);
  };
  return std::min<int64_t>(
      100, std::max(share(cohort_cpu, alloc_cpu), share(cohort_memory, alloc_memory)));
}

}  // namespace tightpack::plugins
