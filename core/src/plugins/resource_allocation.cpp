#include "tightpack/plugins/resource_allocation.hpp"

#include "tightpack/pod_resources.hpp"

namespace tightpack::plugins {

ResourceColumn resource_column(const Cluster& c, const std::string& name) {
  if (name == "cpu") return {ResourceColumn::kCpu};
  if (name == "memory") return {ResourceColumn::kMemory};
  if (name == "ephemeral-storage") return {ResourceColumn::kEphemeral};
  const uint32_t s = c.scalar_index(name);
  if (is_scalar_resource(name) && s != UINT32_MAX) return {ResourceColumn::kScalar, s};
  return {};
}

ScoredResources scored_resources(const Cluster& c, const Pod& pod,
                                 const std::vector<ResourceSpec>& resources, bool non_zero) {
  const ResourceList requests = pod_requests(pod, non_zero);
  ScoredResources out;
  for (const ResourceSpec& r : resources) {
    out.columns.push_back(resource_column(c, r.name));
    const int64_t* amount = find_resource(requests, r.name);
    out.pod_request.push_back(amount ? *amount : 0);
  }
  return out;
}

}  // namespace tightpack::plugins
