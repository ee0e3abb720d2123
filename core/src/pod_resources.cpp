#include "tightpack/pod_resources.hpp"

namespace tightpack {
namespace {

ResourceList with_non_missing(const ResourceList& requests, bool cpu, bool memory) {
  ResourceList out = requests;
  if (cpu && !find_resource(out, "cpu")) set_resource(out, "cpu", kDefaultMilliCpuRequest);
  if (memory && !find_resource(out, "memory")) set_resource(out, "memory", kDefaultMemoryRequest);
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

ResourceList pod_requests(const Pod& pod, bool non_zero) { return pod_requests(pod, non_zero, non_zero); }

bool has_pod_level_requests(const Pod& pod) { return !pod.pod_requests.empty(); }

ResourceList pod_requests(const Pod& pod, bool default_cpu, bool default_memory) {
  auto container_requests = [&](const Container& c) {
    return with_non_missing(c.requests, default_cpu, default_memory);
  };
  ResourceList reqs;
  for (const auto& c : pod.containers) add_resources(reqs, container_requests(c));
  ResourceList sidecars, init_max;
  for (const auto& c : pod.init_containers) {
    ResourceList r = container_requests(c);
    if (c.restart_always) {
      add_resources(reqs, r);
      add_resources(sidecars, r);
      max_resources(init_max, sidecars);
    } else {
      add_resources(r, sidecars);
      max_resources(init_max, r);
    }
  }
  max_resources(reqs, init_max);
  for (const char* name : {"cpu", "memory"}) {  // IsSupportedPodLevelResource
    if (const int64_t* v = find_resource(pod.pod_requests, name)) set_resource(reqs, name, *v);
  }
  for (const auto& [name, v] : pod.pod_requests) {
    if (starts_with(name, "hugepages-")) set_resource(reqs, name, v);
  }
  add_resources(reqs, pod.overhead);
  return reqs;
}

bool is_extended_resource(std::string_view name) {
  if (name.find('/') == std::string_view::npos) return false;        // native, unprefixed
  if (name.find("kubernetes.io/") != std::string_view::npos) return false;  // prefixed native
  return !starts_with(name, "requests.");
}

bool is_scalar_resource(std::string_view name) {
  return is_extended_resource(name) || starts_with(name, "hugepages-") ||
         name.find("kubernetes.io/") != std::string_view::npos || starts_with(name, "attachable-volumes-");
}

}  // namespace tightpack
