// Small builders shared by the core unit tests. Objects are written either as
// Kubernetes JSON (so that decoding is exercised the way users feed it) or
// built directly when a test is about one plugin's arithmetic.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tightpack/cluster.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/model.hpp"

namespace tightpack::testing {

inline constexpr int64_t kKi = 1024;
inline constexpr int64_t kMi = 1024 * kKi;
inline constexpr int64_t kGi = 1024 * kMi;

// A ResourceList from unsorted pairs; the model requires it sorted by name.
inline ResourceList resources(std::initializer_list<std::pair<const char*, int64_t>> items) {
  ResourceList out;
  for (const auto& [name, value] : items) set_resource(out, name, value);
  return out;
}

inline Labels labels(std::initializer_list<std::pair<const char*, const char*>> items) {
  Labels out;
  for (const auto& [k, v] : items) out.emplace_back(k, v);
  std::sort(out.begin(), out.end());
  return out;
}

inline boost::json::value json_of(std::string_view text) {
  auto v = parse_json(text);
  if (!v) ADD_FAILURE() << "test JSON does not parse: " << v.error().what() << "\n" << text;
  return v ? std::move(*v) : boost::json::value();
}

inline Node node_from_json(std::string_view text) {
  auto n = decode_node(json_of(text), JsonPath());
  if (!n) {
    ADD_FAILURE() << n.error().what();
    return Node{};
  }
  return std::move(*n);
}

inline Pod pod_from_json(std::string_view text) {
  auto p = decode_pod(json_of(text), JsonPath());
  if (!p) {
    ADD_FAILURE() << p.error().what();
    return Pod{};
  }
  return std::move(*p);
}

// A node with cpu (millicores), memory (bytes) and a pod capacity.
inline Node make_node(std::string name, int64_t milli_cpu, int64_t memory, int64_t pods = 110) {
  Node n;
  n.name = std::move(name);
  n.allocatable = resources({{"cpu", milli_cpu}, {"memory", memory}, {"pods", pods}});
  n.capacity = n.allocatable;
  return n;
}

inline Container make_container(ResourceList requests, std::string name = "c") {
  Container c;
  c.name = std::move(name);
  c.image = "busybox:1.36";
  c.requests = std::move(requests);
  return c;
}

// A pod with one container per request list.
inline Pod make_pod(std::string name, std::vector<ResourceList> container_requests = {{}}) {
  Pod p;
  p.name = std::move(name);
  for (size_t i = 0; i < container_requests.size(); ++i) {
    p.containers.push_back(make_container(container_requests[i], "c" + std::to_string(i)));
  }
  return p;
}

inline Pod bound_pod(std::string name, std::string node, ResourceList requests,
                     int32_t priority = 0) {
  Pod p = make_pod(std::move(name), {std::move(requests)});
  p.node_name = std::move(node);
  p.priority = priority;
  return p;
}

inline Cluster build_cluster(std::vector<Node> nodes, const std::vector<Pod>& pods = {}) {
  auto c = Cluster::build(std::move(nodes), pods);
  if (!c) {
    ADD_FAILURE() << c.error().what();
    return std::move(Cluster::build({}, {}).value());
  }
  return std::move(*c);
}

}  // namespace tightpack::testing
