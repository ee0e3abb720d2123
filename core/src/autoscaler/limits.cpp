// Cluster-wide resource limits (--cores-total, --memory-total) as scale-up
// applies them: a group whose one new node would exceed what is left is
// skipped, and the chosen increase is cut to what is left.
#include "tightpack/autoscaler/limits.hpp"

#include <algorithm>

#include "tightpack/autoscaler/node_template.hpp"
#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/go_int.hpp"

namespace tightpack::autoscaler {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

int64_t capacity(const Node& n, std::string_view resource) {
  const int64_t* v = find_resource(n.capacity, resource);
  return v ? *v : 0;
}

}  // namespace

ResourcesLeft node_delta(const Node& template_node) {
  // Quantity.Value() of the cpu capacity: whole cores, rounded up.
  const int64_t milli = capacity(template_node, "cpu");
  return ResourcesLeft{milli / 1000 + (milli % 1000 > 0 ? 1 : 0),
                       capacity(template_node, "memory")};
}

ResourcesLeft resources_left(const AutoscaleScenario& s, const std::vector<NodeTemplate>& templates,
                             const std::vector<int64_t>& target_sizes) {
  ResourcesLeft total;
  for (size_t g = 0; g < s.groups.size(); ++g) {
    const ResourcesLeft d = node_delta(templates[g].node);
    total.cores = go_add(total.cores, go_mul(target_sizes[g], d.cores));
    total.memory = go_add(total.memory, go_mul(target_sizes[g], d.memory));
  }
  for (const CaNode& n : s.nodes) {
    bool grouped = false;
    for (const NodeGroupSpec& g : s.groups) {
      grouped = grouped || std::find(g.nodes.begin(), g.nodes.end(), n.node.name) != g.nodes.end();
    }
    if (grouped) continue;
    const ResourcesLeft d = node_delta(n.node);
    total.cores = go_add(total.cores, d.cores);
    total.memory = go_add(total.memory, d.memory);
  }
  const int64_t max_memory = go_mul(s.options.max_memory_total_gib, kGiB);
  return ResourcesLeft{std::max<int64_t>(0, go_sub(s.options.max_cores_total, total.cores)),
                       std::max<int64_t>(0, go_sub(max_memory, total.memory))};
}

std::string limit_exceeded(const ResourcesLeft& left, const ResourcesLeft& per_node) {
  std::string out;
  if (per_node.cores > left.cores) out = "cpu";
  if (per_node.memory > left.memory) out += out.empty() ? "memory" : ", memory";
  return out.empty() ? out : "max cluster " + out + " limit reached";
}

int64_t apply_resource_limits(int64_t delta, const ResourcesLeft& left,
                              const ResourcesLeft& per_node) {
  if (per_node.cores > 0) delta = std::min(delta, left.cores / per_node.cores);
  if (per_node.memory > 0) delta = std::min(delta, left.memory / per_node.memory);
  return delta;
}

}  // namespace tightpack::autoscaler
