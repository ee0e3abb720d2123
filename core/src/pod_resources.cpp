#include "tightpack/pod_resources.hpp"

#include <algorithm>
#include <string_view>

#include "tightpack/go_int.hpp"

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

ResourceList pod_requests(const Pod& pod, bool non_zero) {
  return pod_requests(pod, non_zero, non_zero);
}

bool has_pod_level_requests(const Pod& pod) {
  return !pod.pod_requests.empty();
}

std::pair<int64_t, int64_t> nonzero_requests_v130(const Pod& pod) {
  // GetNonzeroRequests: the default only where the list has no such key.
  auto non_zero = [](const ResourceList& r) {
    const int64_t* cpu = find_resource(r, "cpu");
    const int64_t* memory = find_resource(r, "memory");
    return std::pair<int64_t, int64_t>{cpu ? *cpu : kDefaultMilliCpuRequest,
                                       memory ? *memory : kDefaultMemoryRequest};
  };
  int64_t cpu = 0, memory = 0;
  for (const auto& c : pod.containers) {
    auto [ccpu, cmem] = non_zero(c.requests);
    cpu = go_add(cpu, ccpu);
    memory = go_add(memory, cmem);
  }
  int64_t init_cpu = 0, init_memory = 0;
  ResourceList sidecars;
  for (const auto& c : pod.init_containers) {
    ResourceList step;
    if (c.restart_always) {
      add_resources(sidecars, c.requests);
      step = sidecars;
    } else {
      step = c.requests;
      add_resources(step, sidecars);
    }
    auto [scpu, smem] = non_zero(step);
    init_cpu = std::max(init_cpu, scpu);
    init_memory = std::max(init_memory, smem);
  }
  cpu = std::max(cpu, init_cpu);
  memory = std::max(memory, init_memory);
  if (const int64_t* v = find_resource(pod.overhead, "cpu")) cpu = go_add(cpu, *v);
  if (const int64_t* v = find_resource(pod.overhead, "memory")) memory = go_add(memory, *v);
  return {cpu, memory};
}

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

namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// validation.IsDNS1123Subdomain.
bool is_dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    const std::string_view label =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty()) return false;
    for (char c : label) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    }
    if (label.front() == '-' || label.back() == '-') return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

bool is_qualified_name(std::string_view value) {
  std::string_view name = value;
  if (const size_t slash = value.find('/'); slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) return false;
    if (!is_dns1123_subdomain(value.substr(0, slash))) return false;
    name = value.substr(slash + 1);
  }
  if (name.empty() || name.size() > 63 || !is_alnum(name.front()) || !is_alnum(name.back()))
    return false;
  for (char c : name) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool is_extended_resource(std::string_view name) {
  if (name.find('/') == std::string_view::npos) return false;               // native, unprefixed
  if (name.find("kubernetes.io/") != std::string_view::npos) return false;  // prefixed native
  if (starts_with(name, "requests.")) return false;
  // IsQualifiedName("requests." + name) without building it (a hot path):
  // the prefix "requests.<domain>" is a subdomain of at most 253 characters,
  // so <domain> one of at most 244 (is_qualified_name checks the rest).
  return name.find('/') <= 253 - 9 && is_qualified_name(name);
}

bool is_scalar_resource(std::string_view name) {
  return is_extended_resource(name) || starts_with(name, "hugepages-") ||
         name.find("kubernetes.io/") != std::string_view::npos ||
         starts_with(name, "attachable-volumes-");
}

}  // namespace tightpack
