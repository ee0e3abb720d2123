// utilization.Calculate (simulator/utilization): the fraction of allocatable
// the pods request, in float64 over milli-units as CA divides.
#include "tightpack/autoscaler/utilization.hpp"

#include "tightpack/go_int.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack::autoscaler {
namespace {

constexpr std::string_view kGpu = "nvidia.com/gpu";

// Quantity.MilliValue of the summed container requests; cpu is kept in
// millicores already, everything else in whole units.
int64_t milli(std::string_view resource, int64_t amount) {
  return resource == "cpu" ? amount : go_mul(amount, 1000);
}

// nullopt where CA errors: the resource is not allocatable or is zero.
std::optional<double> fraction(const Node& node, const std::vector<const Pod*>& pods,
                               std::string_view resource) {
  const int64_t* alloc = find_resource(node.allocatable, resource);
  if (!alloc || *alloc == 0) return std::nullopt;
  int64_t sum = 0;
  for (const Pod* p : pods) {
    // podutils.PodRequests: resourcehelper.PodRequests (init containers,
    // sidecars, pod-level requests, overhead).
    const ResourceList requests = pod_requests(*p, false);
    if (const int64_t* v = find_resource(requests, resource)) sum = go_add(sum, *v);
  }
  return static_cast<double>(milli(resource, sum)) / static_cast<double>(milli(resource, *alloc));
}

}  // namespace

Utilization node_utilization(const Node& node, const std::vector<const Pod*>& pods,
                             const std::string& gpu_label) {
  Utilization u;
  const int64_t* gpus = find_resource(node.allocatable, kGpu);
  u.gpu_node = find_label(node.labels, gpu_label) != nullptr || (gpus && *gpus != 0);
  if (u.gpu_node) {
    // An unready GPU (none allocatable) counts as idle.
    u.gpu = fraction(node, pods, kGpu).value_or(0);
    u.resource = std::string(kGpu);
    u.value = u.gpu;
    return u;
  }
  u.cpu = fraction(node, pods, "cpu").value_or(0);
  u.memory = fraction(node, pods, "memory").value_or(0);
  if (u.cpu > u.memory) {
    u.resource = "cpu";
    u.value = u.cpu;
  } else {
    u.resource = "memory";
    u.value = u.memory;
  }
  return u;
}

}  // namespace tightpack::autoscaler
