#include "tightpack/pod_resources.hpp"

#include <algorithm>
#include <string_view>

#include "tightpack/go_int.hpp"
#include "tightpack/go_quantity.hpp"

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

// PodRequests over the amounts as Quantities (GoRequests), converted once at
// the end: aggregateContainerResourcesByFn, applyPodLevelResources, overhead.
using GoList = std::vector<std::pair<std::string, GoQuantity>>;

GoQuantity* find(GoList& list, std::string_view name) {
  for (auto& [n, q] : list) {
    if (n == name) return &q;
  }
  return nullptr;
}

void add_list(GoList& into, const GoList& other) {  // addResourceList
  for (const auto& [name, q] : other) {
    if (GoQuantity* have = find(into, name)) {
      have->add(q);
    } else {
      into.emplace_back(name, q);
    }
  }
}

void max_list(GoList& into, const GoList& other) {  // maxResourceList
  for (const auto& [name, q] : other) {
    GoQuantity candidate = q;
    GoQuantity* have = find(into, name);
    if (!have) {
      into.emplace_back(name, candidate);
    } else if (candidate.compare(*have) > 0) {
      *have = candidate;
    }
  }
}

GoList go_list(const QuantityList& list) {
  GoList out;
  for (const auto& [name, q] : list) out.emplace_back(name, GoQuantity::of(q));
  return out;
}

ResourceList go_pod_requests(const Pod& pod, bool default_cpu, bool default_memory) {
  const GoRequests& r = *pod.go_requests.requests;
  auto container = [&](const QuantityList& requests) {  // applyNonMissing
    GoList out = go_list(requests);
    if (default_cpu && !find(out, "cpu")) {
      out.emplace_back("cpu", GoQuantity::int64_amount(kDefaultMilliCpuRequest, -3));
    }
    if (default_memory && !find(out, "memory")) {
      out.emplace_back("memory", GoQuantity::int64_amount(kDefaultMemoryRequest, 0));
    }
    return out;
  };
  GoList reqs;
  for (const auto& c : r.containers) add_list(reqs, container(c));
  GoList sidecars, init_max;
  for (size_t i = 0; i < r.init_containers.size(); ++i) {
    GoList list = container(r.init_containers[i]);
    if (i < pod.init_containers.size() && pod.init_containers[i].restart_always) {
      add_list(reqs, list);
      add_list(sidecars, list);
      max_list(init_max, sidecars);
    } else {
      add_list(list, sidecars);
      max_list(init_max, list);
    }
  }
  max_list(reqs, init_max);
  for (const auto& [name, q] : r.pod_requests) {  // IsSupportedPodLevelResource
    if (name != "cpu" && name != "memory" && !starts_with(name, "hugepages-")) continue;
    if (GoQuantity* have = find(reqs, name)) {
      *have = GoQuantity::of(q);
    } else {
      reqs.emplace_back(name, GoQuantity::of(q));
    }
  }
  add_list(reqs, go_list(r.overhead));
  ResourceList out;
  for (const auto& [name, q] : reqs) set_resource(out, name, q.scaled(name == "cpu" ? 3 : 0));
  return out;
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
  if (pod.go_requests) return go_pod_requests(pod, default_cpu, default_memory);
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
