#include "synthetic_cluster.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <random>
#include <string>

namespace tightpack::bench {
namespace {

constexpr int64_t kGi = 1024LL * 1024 * 1024;

Labels sorted(Labels l) {
  std::sort(l.begin(), l.end());
  return l;
}

}  // namespace

SyntheticCluster make_cluster(size_t count, size_t pods_per_node, uint64_t seed) {
  std::mt19937_64 rng(seed);
  SyntheticCluster c;
  c.nodes.reserve(count);
  const char* zones[] = {"us-central1-a", "us-central1-b", "us-central1-c"};
  for (size_t i = 0; i < count; ++i) {
    Node n;
    std::string pool = i % 10 < 2 ? "core" : (i % 10 < 9 ? "dask-workers" : "gpu");
    n.name = "gke-daskhub-" + pool + "-" + std::to_string(i);
    std::string zone = zones[i % 3];
    n.labels = sorted(
        {{"cloud.google.com/gke-nodepool", pool},
         {"kubernetes.io/hostname", n.name},
         {"node.kubernetes.io/instance-type", pool == "gpu" ? "n1-standard-8" : "n2-highmem-16"},
         {"topology.kubernetes.io/zone", zone},
         {"k8s.dask.org/node-purpose", pool == "dask-workers" ? "worker" : "other"}});
    if (pool == "dask-workers")
      n.taints.push_back({"k8s.dask.org/dedicated", "worker", "NoSchedule"});
    if (pool == "gpu") n.taints.push_back({"nvidia.com/gpu", "present", "NoSchedule"});
    if (i % 97 == 0) n.taints.push_back({"maintenance", "scheduled", "PreferNoSchedule"});
    n.unschedulable = i % 211 == 5;
    n.allocatable = {
        {"cpu", 15890}, {"ephemeral-storage", 100 * kGi}, {"memory", 120 * kGi}, {"pods", 110}};
    if (pool == "gpu") n.allocatable.push_back({"nvidia.com/gpu", 1});
    std::sort(n.allocatable.begin(), n.allocatable.end());
    n.capacity = n.allocatable;
    n.images.push_back(
        {{"ghcr.io/dask/dask:2024.1.0", "ghcr.io/dask/dask@sha256:abc"}, 900LL * 1024 * 1024});
    if (i % 3 == 0) n.images.push_back({{"pangeo/pangeo-notebook:2024.01.01"}, 3 * kGi});
    c.nodes.push_back(std::move(n));
  }
  std::uniform_int_distribution<int64_t> cpu(50, 400), mem(64, 3072);
  c.pods.reserve(count * pods_per_node);
  for (size_t i = 0; i < count; ++i) {
    for (size_t k = 0; k < pods_per_node; ++k) {
      Pod p;
      p.ns = "daskhub";
      p.name = "pod-" + std::to_string(i) + "-" + std::to_string(k);
      p.node_name = c.nodes[i].name;
      Container ctr;
      ctr.name = "main";
      ctr.image = k % 2 ? "ghcr.io/dask/dask:2024.1.0" : "busybox:1.36";
      ctr.requests = {{"cpu", cpu(rng)}, {"memory", mem(rng) * 1024 * 1024}};
      p.containers.push_back(std::move(ctr));
      p.priority = k % 5 == 0 ? -10 : 0;
      c.pods.push_back(std::move(p));
    }
  }
  return c;
}

std::string snapshot_json(const SyntheticCluster& s) {
  boost::json::array items;
  for (const auto& n : s.nodes) {
    boost::json::object alloc;
    for (const auto& [k, v] : n.allocatable)
      alloc[k] = k == "cpu" ? std::to_string(v) + "m" : std::to_string(v);
    boost::json::object labels;
    for (const auto& [k, v] : n.labels) labels[k] = v;
    items.push_back({{"kind", "Node"},
                     {"metadata", {{"name", n.name}, {"labels", labels}}},
                     {"status", {{"allocatable", alloc}, {"capacity", alloc}}}});
  }
  for (const auto& p : s.pods) {
    const auto& r = p.containers[0].requests;
    items.push_back({{"kind", "Pod"},
                     {"metadata", {{"name", p.name}, {"namespace", p.ns}}},
                     {"spec",
                      {{"nodeName", p.node_name},
                       {"containers",
                        {{{"name", "main"},
                          {"image", p.containers[0].image},
                          {"resources",
                           {{"requests",
                             {{"cpu", std::to_string(r[0].second) + "m"},
                              {"memory", std::to_string(r[1].second)}}}}}}}}}},
                     {"status", {{"phase", "Running"}}}});
  }
  return boost::json::serialize(
      boost::json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}});
}

Pod dask_worker() {
  Pod p;
  p.ns = "daskhub";
  p.name = "dask-worker";
  Container c;
  c.name = "worker";
  c.image = "ghcr.io/dask/dask:2024.1.0";
  c.requests = {{"cpu", 1000}, {"memory", 4 * kGi}};
  c.limits = c.requests;
  p.containers.push_back(std::move(c));
  p.tolerations.push_back(
      {"k8s.dask.org/dedicated", "Equal", "worker", "NoSchedule", std::nullopt});
  p.tolerations.push_back(
      {"k8s.dask.org_dedicated", "Equal", "worker", "NoSchedule", std::nullopt});
  PreferredSchedulingTerm pref;
  pref.weight = 100;
  pref.preference.match_expressions.push_back({"k8s.dask.org/node-purpose", "In", {"worker"}});
  p.node_affinity.preferred.push_back(std::move(pref));
  return p;
}

const std::string& snapshot_text(size_t nodes) {
  static std::map<size_t, std::string> cache;
  auto it = cache.find(nodes);
  if (it != cache.end()) return it->second;
  return cache[nodes] = snapshot_json(make_cluster(nodes, 30));
}

}  // namespace tightpack::bench
