// The watch cache keeps the engine's Cluster equal to its objects while pods
// come, go, are assumed and forgotten; /snapshot redacts it without changing
// what placement sees.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "daemon/cache.hpp"
#include "daemon/pod_budget.hpp"
#include "daemon/snapshot.hpp"
#include "decision_by_name.hpp"
#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/profile.hpp"
#include "tightpack/what_if/what_if.hpp"

namespace tightpack::daemon {
namespace {
namespace json = boost::json;
using tightpack::testing::decision_by_name;

autoscaler::CaNode node(const std::string& name, int cpu, const std::string& pool = "workers") {
  autoscaler::CaNode n;
  n.node.name = name;
  n.node.labels = {{"cloud.google.com/gke-nodepool", pool}, {"kubernetes.io/hostname", name}};
  n.node.allocatable = {{"cpu", cpu * 1000}, {"memory", int64_t(cpu) * (4LL << 30)}, {"pods", 110}};
  n.node.capacity = n.node.allocatable;
  return n;
}

autoscaler::CaPod pod(const std::string& name, int64_t millicores,
                      const std::string& node_name = "") {
  autoscaler::CaPod p;
  p.pod.ns = "jhub";
  p.pod.name = name;
  p.pod.uid = "uid-" + name;
  p.pod.node_name = node_name;
  p.pod.phase = node_name.empty() ? "Pending" : "Running";
  p.pod.labels = {{"app", "secret-" + name}};
  Container c;
  c.name = "notebook-of-" + name;
  c.image = "registry.example/private/" + name + ":1";
  c.requests = {{"cpu", millicores}, {"memory", 1LL << 30}};
  p.pod.containers.push_back(c);
  return p;
}

// The requested cpu per node name, as a Cluster sees it.
std::map<std::string, int64_t> cpu_by_node(const Cluster& c) {
  std::map<std::string, int64_t> out;
  for (NodeIndex n = 0; n < c.size(); ++n) out[c.name(n)] = c.req_cpu()[n];
  return out;
}

// A pod of the random-event test: by its name, a Dask worker or a notebook,
// and one in four keeps workers off its node where it can (a bound pod's
// terms and labels are what the cluster's label index and affinity counts
// hold, and what a node removal must take away).
autoscaler::CaPod workload_pod(const std::string& name, int64_t millicores,
                               const std::string& node_name = "") {
  autoscaler::CaPod p = pod(name, millicores, node_name);
  const size_t h = std::hash<std::string>{}(name);
  p.pod.labels.emplace_back("component", h % 2 ? "worker" : "notebook");
  if (h % 4 == 0) {
    PodAffinityTerm term;
    term.anti = true;
    term.weight = 10;
    term.label_selector = LabelSelector{{{"component", "worker"}}, {}};
    term.topology_key = "kubernetes.io/hostname";
    p.pod.pod_affinity_terms.push_back(term);
  }
  return p;
}

// Pods that read what a node change moves: the pool label, the zone, the
// worker taint, cordons and allocatable; the bound pods' labels and terms,
// by node and by zone.
std::vector<Pod> probes() {
  Pod worker = pod("probe-worker", 1).pod;  // small: fits while the nodes fill up
  worker.tolerations.push_back(
      Toleration{"k8s.dask.org/dedicated", "Equal", "worker", "NoSchedule"});
  worker.node_affinity.preferred.push_back(PreferredSchedulingTerm{
      10, NodeSelectorTerm{{{"topology.kubernetes.io/zone", "In", {"z2"}}}, {}}});
  worker.node_affinity.preferred.push_back(PreferredSchedulingTerm{
      5, NodeSelectorTerm{{{"topology.kubernetes.io/zone", "Exists", {}}}, {}}});
  Pod notebook = pod("probe-notebook", 1).pod;
  notebook.node_selector = {{"cloud.google.com/gke-nodepool", "workers"}};
  Pod spread = workload_pod("probe-spread", 1).pod;
  spread.labels = {{"component", "worker"}};
  spread.topology_spread.push_back(
      TopologySpreadConstraint{1, "topology.kubernetes.io/zone", "DoNotSchedule",
                               LabelSelector{{{"component", "worker"}}, {}}});
  spread.topology_spread.push_back(TopologySpreadConstraint{
      1, "kubernetes.io/hostname", "ScheduleAnyway", LabelSelector{{{"component", "worker"}}, {}}});
  Pod apart = workload_pod("probe-apart", 1).pod;
  PodAffinityTerm term;
  term.anti = true;
  term.required = true;
  term.label_selector = LabelSelector{{{"component", "notebook"}}, {}};
  term.topology_key = "kubernetes.io/hostname";
  apart.pod_affinity_terms = {term};
  term.anti = false;
  term.required = false;
  term.weight = 20;
  term.label_selector = LabelSelector{{{"component", "worker"}}, {}};
  term.topology_key = "topology.kubernetes.io/zone";
  apart.pod_affinity_terms.push_back(term);
  return {worker, notebook, spread, apart};
}

TEST(ClusterCache, IncrementalClusterEqualsARebuildAfterRandomEvents) {
  std::mt19937 rng(42);
  ClusterCache cache;
  std::vector<autoscaler::CaNode> nodes;
  for (int i = 0; i < 6; ++i) nodes.push_back(node("node-" + std::to_string(i), 8));
  cache.replace_nodes(nodes);
  std::vector<std::string> names;
  bool node_changed = false;
  for (int step = 0; step < 2000; ++step) {
    const int op = static_cast<int>(rng() % 8);
    const std::string target = "node-" + std::to_string(rng() % 7);  // node-6 does not exist
    if (op <= 1 || names.empty()) {
      const std::string name = "p" + std::to_string(step);
      cache.upsert_pod(workload_pod(name, 100 + 100 * (rng() % 5), op == 0 ? target : ""));
      names.push_back(name);
      continue;
    }
    const std::string name = names[rng() % names.size()];
    const std::string key = "jhub/" + name;
    const PodRecord* rec = cache.pod(key);
    switch (op) {
      case 2:  // bound by the watch
        if (rec)
          cache.upsert_pod(
              workload_pod(name, rec->pod.pod.containers[0].requests[0].second, target));
        break;
      case 3:
        if (rec && rec->pending()) {
          // As the daemon assumes: the plan's copy of the pod.
          static const Profile profile = default_profile();
          auto plan = PodPlan::make(cache.cluster(), profile, rec->pod.pod);
          PlanScratch scratch;
          ASSERT_TRUE(plan) << plan.error().what();
          cache.assume(key, target, plan->bound(key));
        }
        break;
      case 4:
        cache.forget(key);
        break;
      case 5:
        cache.remove_pod(key);
        break;
      case 7:  // resized in place (or its spec seen anew after an assumption): same node, new
               // requests
        if (rec)
          cache.upsert_pod(workload_pod(name, 100 + 100 * (rng() % 5), rec->pod.pod.node_name));
        break;
      case 6:
        if (rng() % 3 == 0) {  // a node goes, comes or changes, all in place
          const int change = static_cast<int>(rng() % 6);
          if (change == 5) {  // a move closes nodes, or ends and opens them
            std::set<std::string> closed;
            for (int i = 0; i < 7; ++i) {
              if (rng() % 4 == 0) closed.insert("node-" + std::to_string(i));
            }
            cache.set_closed(std::move(closed));
            node_changed = true;
            break;
          }
          auto it = cache.nodes().find(target);
          autoscaler::CaNode changed = it == cache.nodes().end() ? node(target, 8) : it->second;
          if (change == 0) {
            cache.remove_node(target);
            node_changed = true;
            break;
          } else if (change == 1) {
            changed.node.allocatable =
                node(target, 8 + static_cast<int>(rng() % 3)).node.allocatable;
          } else if (change == 2) {
            changed.node.labels = {
                {"cloud.google.com/gke-nodepool", rng() % 2 ? "workers" : "users"},
                {"kubernetes.io/hostname", target}};
            if (rng() % 3)
              changed.node.labels.emplace_back("topology.kubernetes.io/zone",
                                               rng() % 2 ? "z1" : "z2");
          } else if (change == 3) {
            changed.node.taints.clear();
            if (rng() % 2)
              changed.node.taints.push_back(
                  Taint{"k8s.dask.org/dedicated", "worker", "NoSchedule"});
          } else {
            changed.node.unschedulable = !changed.node.unschedulable;
          }
          cache.upsert_node(changed);
          node_changed = true;
        }
        break;
    }
    // After each node change (a decision in between, as in the daemon: the
    // next change finds the cluster clean) and every 50 steps.
    if (step % 50 != 0 && !node_changed) continue;
    node_changed = false;
    const auto incremental = cpu_by_node(cache.cluster());
    // The same objects, decided from scratch.
    ClusterCache fresh;
    std::vector<autoscaler::CaNode> now_nodes;
    for (const auto& [n, v] : cache.nodes()) now_nodes.push_back(v);
    fresh.replace_nodes(now_nodes);
    std::map<std::string, int64_t> expected;
    for (const auto& [n, v] : cache.nodes()) expected[n] = 0;
    for (const auto& [k, r] : cache.pods()) {
      if (!r.holds().empty() && expected.count(r.holds()))
        expected[r.holds()] += r.pod.pod.containers[0].requests[0].second;
    }
    ASSERT_EQ(incremental, expected) << "step " << step;
    // Decisions on the kept cluster are those on one built from the objects.
    std::vector<Node> now;
    for (const auto& [n, v] : cache.nodes()) {
      now.push_back(v.node);
      if (cache.closed().contains(n)) now.back().unschedulable = true;
    }
    std::vector<Pod> held;
    for (const auto& [k, r] : cache.pods()) {
      if (r.holds().empty()) continue;
      held.push_back(r.pod.pod);
      held.back().node_name = r.holds();
    }
    auto built = Cluster::build(now, held);
    ASSERT_TRUE(built) << built.error().what();
    for (const Pod& probe : probes()) {
      EXPECT_EQ(decision_by_name(cache.cluster(), probe), decision_by_name(*built, probe))
          << "step " << step;
    }
  }
  EXPECT_GT(cache.node_updates(), 0);
  EXPECT_GT(cache.node_adds(), 0);
  EXPECT_GT(cache.node_removes(), 0);
  EXPECT_EQ(cache.rebuilds(), 1);  // the first cluster() only
}

// A node's watch event changes the cluster when, and only when, a field the
// node decoder reads changed: kubelets' status heartbeats are not decoded, so
// they change nothing; every decoded field, one at a time, does.
TEST(ClusterCache, ANodeChangesWhenADecodedFieldDoes) {
  const json::value watched = json::parse(R"({
    "metadata": {"name": "a", "labels": {"pool": "workers"}},
    "spec": {"taints": [{"key": "dask", "value": "worker", "effect": "NoSchedule"}]},
    "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
               "allocatable": {"cpu": "7", "memory": "30Gi", "pods": "110"},
               "images": [{"names": ["ghcr.io/dask/dask:1"], "sizeBytes": 1000}],
               "conditions": [{"type": "Ready", "status": "True",
                               "lastHeartbeatTime": "2026-12-07T08:00:00Z"}]}})");
  auto decoded = [](const json::value& v) {
    auto n = autoscaler::decode_ca_node(v, JsonPath());
    EXPECT_TRUE(n) << n.error().what();
    return *n;
  };
  auto changes = [&](const std::function<void(json::object&)>& edit) {
    ClusterCache cache;
    cache.replace_nodes({decoded(watched)});
    json::value next = watched;
    edit(next.as_object());
    return cache.upsert_node(decoded(next));
  };
  EXPECT_FALSE(changes([](json::object&) {}));
  EXPECT_FALSE(changes([](json::object& o) {
    o["status"].as_object()["conditions"].as_array()[0].as_object()["lastHeartbeatTime"] =
        "2026-12-07T08:00:10Z";
  }));
  EXPECT_TRUE(changes(
      [](json::object& o) { o["metadata"].as_object()["labels"].as_object()["pool"] = "other"; }));
  EXPECT_TRUE(changes([](json::object& o) { o["spec"].as_object().erase("taints"); }));
  EXPECT_TRUE(changes([](json::object& o) { o["spec"].as_object()["unschedulable"] = true; }));
  EXPECT_TRUE(changes(
      [](json::object& o) { o["status"].as_object()["allocatable"].as_object()["cpu"] = "6"; }));
  EXPECT_TRUE(changes(
      [](json::object& o) { o["status"].as_object()["capacity"].as_object()["cpu"] = "16"; }));
  EXPECT_TRUE(changes([](json::object& o) {
    o["status"].as_object()["images"].as_array()[0].as_object()["sizeBytes"] = 2000;
  }));
}

TEST(ClusterCache, AClosedNodeTakesNoPodUntilItOpensAndTheNodeIsNotWritten) {
  ClusterCache cache;
  cache.replace_nodes({node("a", 8), node("b", 8)});
  cache.upsert_pod(pod("notebook", 1000, "a"));  // MostAllocated would choose a
  const Profile profile = default_profile();
  auto choice = [&] {
    const Pod probe = pod("worker", 1000).pod;
    auto plan = PodPlan::make(cache.cluster(), profile, probe);
    PlanScratch scratch;
    EXPECT_TRUE(plan) << plan.error().what();
    const Decision d = decide(*plan, cache.cluster(), scratch);
    return d.chosen ? cache.cluster().name(*d.chosen) : std::string("none");
  };
  ASSERT_EQ(cache.cluster().req_cpu()[cache.cluster().find("a")], 1000);
  const std::string open_choice = choice();
  const std::string other = open_choice == "a" ? "b" : "a";
  EXPECT_TRUE(cache.set_closed({open_choice}));
  EXPECT_FALSE(cache.set_closed({open_choice}));
  EXPECT_EQ(choice(), other);
  EXPECT_FALSE(cache.nodes().at(open_choice).node.unschedulable);  // the Node as watched
  // A watch event of the closed node keeps it closed.
  cache.upsert_node(node(open_choice, 16));
  EXPECT_EQ(choice(), other);
  cache.set_closed({open_choice, other});
  EXPECT_EQ(choice(), "none");
  cache.set_closed({});
  EXPECT_NE(choice(), "none");
  EXPECT_EQ(cache.rebuilds(), 1);  // closed and opened in place
}

TEST(ClusterCache, ARelistKeepsAssumptionsOfPodsStillPending) {
  ClusterCache cache;
  cache.replace_nodes({node("a", 4)});
  cache.upsert_pod(pod("w", 1000));
  Cluster& c = cache.cluster();
  cache.assume("jhub/w", "a", BoundPod{"jhub/w", 0, c.usage_of(cache.pod("jhub/w")->pod.pod), ""});
  cache.replace_pods({pod("w", 1000)});
  EXPECT_EQ(cache.pod("jhub/w")->assumed_node, "a");
  EXPECT_EQ(cache.cluster().req_cpu()[0], 1000);
  cache.replace_pods({pod("w", 1000, "a")});  // the binding arrived
  EXPECT_EQ(cache.pod("jhub/w")->assumed_node, "");
  EXPECT_EQ(cache.cluster().req_cpu()[0], 1000);
}

// What a sidebar reads of a /snapshot answer: the envelope, its cluster's
// items as core's visit_objects gives them (PodGroups as their pods).
json::object read_snapshot(const std::string& text) {
  json::object snap = json::parse(text).as_object();
  json::array items;
  auto s = visit_objects(snap.at("cluster"), JsonPath("cluster"),
                         [&](std::string_view, const json::value& item, const JsonPath&) -> Status {
                           items.push_back(item);
                           return Ok{};
                         });
  EXPECT_TRUE(s) << s.error().what();
  snap["cluster"] = json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
  return snap;
}

// JSON text with every object's keys sorted: the two forms write keys in
// other orders.
std::string sorted_text(const json::value& v) {
  if (v.is_array()) {
    std::string out = "[";
    for (const json::value& e : v.as_array()) out += sorted_text(e) + ",";
    return out + "]";
  }
  if (!v.is_object()) return json::serialize(v);
  std::map<std::string, const json::value*> keys;
  for (const auto& kv : v.as_object()) keys.emplace(std::string(kv.key()), &kv.value());
  std::string out = "{";
  for (const auto& [k, e] : keys) out += k + ":" + sorted_text(*e) + ",";
  return out + "}";
}

json::object snapshot_of(const ClusterCache& cache, const json::value& config,
                         const Published& published, uint64_t seed,
                         PodForm form = PodForm::kGrouped) {
  return read_snapshot(
      RedactedSnapshot(cache, config, std::nullopt, published, {seed, ~seed}).text(form));
}

TEST(Snapshot, NamesNoPodImageOrLabelAndPlacesTheSame) {
  ClusterCache cache;
  cache.replace_nodes({node("node-a", 8), node("node-b", 8, "gpu")});
  auto owned = pod("alice-worker", 1500, "node-a");
  owned.controller_kind = "ReplicaSet";
  owned.controller_name = "alice-dask-workers";
  owned.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "true"},
                           {"secret-note", "alice"}};
  Container sidecar;
  sidecar.name = "alice-sidecar";
  sidecar.requests = {{"cpu", 250}};
  sidecar.restart_always = true;
  owned.pod.init_containers.push_back(sidecar);
  owned.pod.tolerations.push_back(
      Toleration{"dask", "Equal", "worker", "NoSchedule", std::nullopt});
  cache.upsert_pod(owned);
  cache.upsert_pod(pod("bob-notebook", 500, "node-b"));
  cache.upsert_pod(pod("carol-pending", 700));  // holds no room: not published
  const Published profiles{json::array{json::object{{"display_name", "Small"}}}, nullptr};
  const json::object config{{"kind", "KubeSchedulerConfiguration"}};
  for (PodForm form : {PodForm::kGrouped, PodForm::kExpanded}) {
    const std::string text =
        RedactedSnapshot(cache, config, std::nullopt, profiles, {1, 2}).text(form);
    for (const char* secret :
         {"alice", "bob", "carol", "registry.example", "secret", "notebook-of", "jhub"}) {
      EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in " << text;
    }
    EXPECT_NE(text.find("safe-to-evict"), std::string::npos);
  }
  // One draw, two forms: the same pods (in another order).
  const RedactedSnapshot drawn(cache, config, std::nullopt, profiles, {1, 2});
  auto items = [](const json::object& snap) {
    std::vector<std::string> out;
    for (const json::value& item : snap.at("cluster").at("items").as_array())
      out.push_back(sorted_text(item));
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(items(read_snapshot(drawn.text(PodForm::kGrouped))),
            items(read_snapshot(drawn.text(PodForm::kExpanded))));
  const json::object snap = snapshot_of(cache, config, profiles, 1);
  for (const char* key : {"cluster", "pools", "schedulerConfiguration", "profiles"})
    EXPECT_TRUE(snap.contains(key)) << key;

  // The sidebar's engine sees the same fill as the scheduler.
  auto loaded = WhatIfCluster::load(snap.at("cluster"), JsonPath("cluster"));
  ASSERT_TRUE(loaded) << loaded.error().what();
  const Cluster& published = loaded->cluster();
  const Cluster& ours = cache.cluster();
  ASSERT_EQ(published.size(), ours.size());
  for (NodeIndex n = 0; n < ours.size(); ++n) {
    const NodeIndex m = published.find(ours.name(n));
    ASSERT_LT(m, published.size());
    EXPECT_EQ(published.req_cpu()[m], ours.req_cpu()[n]) << ours.name(n);
    EXPECT_EQ(published.req_memory()[m], ours.req_memory()[n]) << ours.name(n);
    EXPECT_EQ(published.nz_cpu()[m], ours.nz_cpu()[n]) << ours.name(n);
    EXPECT_EQ(published.pod_count()[m], ours.pod_count()[n]) << ours.name(n);
    EXPECT_EQ(published.alloc_cpu()[m], ours.alloc_cpu()[n]) << ours.name(n);
  }
}

// Pods that differ only by name, namespace, owner and node are written once:
// the snapshot's size grows with the kinds of pods, not their number.
TEST(Snapshot, PodsOfOneSpecAreOneGroup) {
  ClusterCache cache;
  cache.replace_nodes({node("node-a", 64), node("node-b", 64)});
  for (int i = 0; i < 40; ++i) {
    auto p = pod("worker-" + std::to_string(i), 1000, i % 2 ? "node-a" : "node-b");
    p.pod.ns = i % 3 ? "alice" : "bob";
    p.controller_kind = "ReplicaSet";
    p.controller_name = "rs-" + std::to_string(i % 4);
    p.pod.tolerations.push_back(
        Toleration{"k8s.dask.org/dedicated", "Equal", "worker", "NoSchedule", std::nullopt});
    cache.upsert_pod(p);
  }
  cache.upsert_pod(pod("notebook", 500, "node-a"));
  const RedactedSnapshot drawn(cache, json::object{}, std::nullopt, Published{}, {1, 2});
  const json::object grouped = json::parse(drawn.text(PodForm::kGrouped)).as_object();
  std::vector<size_t> sizes;
  for (const json::value& item : grouped.at("cluster").at("items").as_array()) {
    if (item.at("kind") == "PodGroup") sizes.push_back(item.at("pods").as_array().size());
  }
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<size_t>{1, 40}));
  EXPECT_LT(drawn.text(PodForm::kGrouped).size() * 3, drawn.text(PodForm::kExpanded).size());
  // Read back, the 41 pods and their 4 owners and 2 namespaces.
  std::set<std::string> owners, namespaces;
  size_t pods = 0;
  const json::object read = read_snapshot(drawn.text(PodForm::kGrouped));
  for (const json::value& item : read.at("cluster").at("items").as_array()) {
    if (item.at("kind") != "Pod") continue;
    ++pods;
    namespaces.insert(std::string(item.at("metadata").at("namespace").as_string()));
    if (const json::value* refs = item.at("metadata").as_object().if_contains("ownerReferences"))
      owners.insert(std::string(refs->as_array()[0].at("name").as_string()));
  }
  std::set<std::pair<std::string, std::string>> controllers;
  for (const auto& [key, rec] : cache.pods()) {
    if (!rec.pod.controller_name.empty())
      controllers.emplace(rec.pod.pod.ns, rec.pod.controller_name);
  }
  EXPECT_EQ(pods, 41u);
  EXPECT_EQ(owners.size(), controllers.size());  // one owner in one namespace: one pseudonym
  EXPECT_EQ(namespaces.size(), 3u);
}

// A snapshot with every pseudonym taken out: each pod without its name,
// namespace and owner name, and which pods share a namespace and an owner
// (as sorted lists of those pods), so that two snapshots compare equal when
// they differ only by the names given.
std::vector<std::string> canonical(const json::object& snap) {
  std::vector<std::string> pods;
  std::map<std::string, std::vector<std::string>> by_namespace, by_owner;
  for (const json::value& item : snap.at("cluster").at("items").as_array()) {
    if (item.at("kind") != "Pod") continue;
    json::object p = item.as_object();
    json::object& meta = p["metadata"].as_object();
    const std::string ns(meta.at("namespace").as_string());
    std::string owner;
    meta.erase("name");
    meta.erase("namespace");
    if (json::value* refs = meta.if_contains("ownerReferences")) {
      json::object& ref = refs->as_array()[0].as_object();
      owner = std::string(ref.at("name").as_string());
      ref.erase("name");
    }
    const std::string text = json::serialize(p);
    pods.push_back(text);
    by_namespace[ns].push_back(text);
    if (!owner.empty()) by_owner[owner].push_back(text);
  }
  std::vector<std::string> out = pods;
  for (auto* groups : {&by_namespace, &by_owner}) {
    std::vector<std::string> shapes;
    for (auto& [name, members] : *groups) {
      std::sort(members.begin(), members.end());
      std::string shape;
      for (const auto& m : members) shape += m + "|";
      shapes.push_back(shape);
    }
    std::sort(shapes.begin(), shapes.end());
    out.push_back("--");
    out.insert(out.end(), shapes.begin(), shapes.end());
  }
  std::sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(pods.size()));
  return out;
}

// Users in two namespaces, each with pods of distinct sizes, two of them
// owned by one controller; `names` renames users and namespaces.
ClusterCache users(const std::vector<std::string>& names,
                   const std::vector<std::string>& namespaces) {
  ClusterCache cache;
  cache.replace_nodes({node("node-a", 64), node("node-b", 64)});
  for (size_t i = 0; i < names.size(); ++i) {
    auto p =
        pod("jupyter-" + names[i], 100 + 50 * static_cast<int64_t>(i), i % 2 ? "node-a" : "node-b");
    p.pod.ns = namespaces[i % namespaces.size()];
    if (i < 2) {
      p.controller_kind = "ReplicaSet";
      p.controller_name = names[0] + "-workers";
    }
    cache.upsert_pod(p);
  }
  return cache;
}

TEST(Snapshot, PseudonymsAreSipHashOfTheName) {
  // The reference implementation's vectors (Aumasson and Bernstein): key
  // 00 01 .. 0f, messages of 0 and 15 bytes 00 01 ..; `openssl mac SIPHASH`
  // gives the same.
  const PseudonymKey key{0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};
  EXPECT_EQ(siphash24(key, {}), 0x726fdb47dd0e0e31ULL);
  const std::string fifteen("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e", 15);
  EXPECT_EQ(siphash24(key, {fifteen}), 0xa129ca6149be45e5ULL);
  // Parts are one message, however cut.
  EXPECT_EQ(siphash24(key, {fifteen.substr(0, 3), "", fifteen.substr(3)}), 0xa129ca6149be45e5ULL);
}

TEST(Snapshot, PseudonymsDoNotFollowNamesOrOrder) {
  const std::vector<std::string> names = {"alice", "bob", "carol", "dave", "erin", "frank"};
  const ClusterCache cache = users(names, {"hub-a", "hub-b"});
  // Renaming users and namespaces leaves the snapshot the same up to the
  // pseudonyms; so does another seed.
  const ClusterCache renamed =
      users({"zoe", "yann", "xena", "will", "vera", "ugo"}, {"zz-team", "aa-team"});
  const auto expected = canonical(snapshot_of(cache, json::object{}, Published{}, 7));
  EXPECT_EQ(canonical(snapshot_of(renamed, json::object{}, Published{}, 7)), expected);
  EXPECT_EQ(canonical(snapshot_of(cache, json::object{}, Published{}, 8)), expected);
  // Every pod a Pod: over many snapshots every user's pod comes first about as
  // often as any other (a pod's cpu request tells which it is), and
  // pseudonyms are new each time: the order says nothing of the names.
  std::map<std::string, int> first;
  std::set<std::string> pseudonyms;
  const int snapshots = 600;
  for (int seed = 0; seed < snapshots; ++seed) {
    const json::object snap =
        snapshot_of(cache, json::object{}, Published{}, seed, PodForm::kExpanded);
    for (const json::value& item : snap.at("cluster").at("items").as_array()) {
      if (item.at("kind") != "Pod") continue;
      pseudonyms.insert(std::string(item.at("metadata").at("name").as_string()));
    }
    for (const json::value& item : snap.at("cluster").at("items").as_array()) {
      if (item.at("kind") != "Pod") continue;
      ++first[json::serialize(item.at("spec").at("containers").at(0).at("resources"))];
      break;
    }
  }
  EXPECT_EQ(pseudonyms.size(), static_cast<size_t>(snapshots) * names.size());
  // Grouped: groups in the order of what they hold, members in pseudonym
  // order, so the pods' order without pseudonyms is the same whoever they are.
  auto shapes = [](const json::object& snap) {
    std::vector<std::string> out;
    for (const json::value& item : snap.at("cluster").at("items").as_array()) {
      if (item.at("kind") == "Pod")
        out.push_back(json::serialize(item.at("spec").at("containers").at(0).at("resources")));
    }
    return out;
  };
  const auto order = shapes(snapshot_of(cache, json::object{}, Published{}, 1));
  EXPECT_EQ(shapes(snapshot_of(renamed, json::object{}, Published{}, 2)), order);
  EXPECT_EQ(shapes(snapshot_of(cache, json::object{}, Published{}, 3)), order);
  ASSERT_EQ(first.size(), names.size());
  for (const auto& [pod, count] : first)
    EXPECT_GT(count, snapshots / static_cast<int>(names.size()) / 2) << pod;
}

}  // namespace
}  // namespace tightpack::daemon

namespace tightpack::daemon {
namespace {

autoscaler::CaPod tolerant(const std::string& name, size_t tolerations,
                           const std::string& node_name,
                           const std::string& scheduler = "tightpack") {
  autoscaler::CaPod p = pod(name, 2000, node_name);
  p.pod.scheduler_name = scheduler;
  p.controller_kind = "ReplicaSet";
  p.controller_name = "rs-" + name;
  for (size_t i = 0; i < tolerations; ++i)
    p.pod.tolerations.push_back(Toleration{"k" + std::to_string(i), "Exists", "", "NoSchedule"});
  return p;
}

// The parts many pods hold alike are kept once; a pod changed later gets its
// own copy and the others keep theirs.
TEST(ClusterCache, EqualPartsOfPodsAreKeptOnce) {
  ClusterCache cache;
  cache.replace_nodes({node("n1", 64)});
  for (int i = 0; i < 50; ++i) {
    autoscaler::CaPod p = pod("worker-" + std::to_string(i), 1000, i % 2 ? "n1" : "");
    p.pod.labels = {{"dask.org/component", "worker"}};
    p.pod.tolerations = {Toleration{"k8s.dask.org/dedicated", "Equal", "worker", "NoSchedule", {}}};
    cache.upsert_pod(p);
  }
  const Pod& first = cache.pod("jhub/worker-0")->pod.pod;   // pending: names and images kept
  const Pod& second = cache.pod("jhub/worker-1")->pod.pod;  // bound: without them
  for (int i = 2; i < 50; ++i) {
    const Pod& p = cache.pod("jhub/worker-" + std::to_string(i))->pod.pod;
    EXPECT_EQ(p.tolerations.held(), first.tolerations.held()) << i;
    EXPECT_EQ(p.labels.held(), first.labels.held()) << i;
    if (i % 2) {
      EXPECT_EQ(p.containers.held(), second.containers.held()) << i;
    }
  }
  Pod changed = second;
  changed.tolerations.push_back(Toleration{"gpu", "Exists", "", "NoSchedule", {}});
  EXPECT_EQ(second.tolerations.size(), 1u);
  EXPECT_EQ(cache.pod("jhub/worker-3")->pod.pod.tolerations.size(), 1u);
}

TEST(ClusterCache, PodsBeyondTheBudgetAreKeptReducedButCounted) {
  ClusterCache cache;
  cache.set_places([](const Pod& p) { return p.scheduler_name == "tightpack"; });
  cache.replace_nodes({node("n1", 8)});
  cache.upsert_pod(tolerant("bound", 10000, "n1"));
  cache.upsert_pod(tolerant("elsewhere", 10000, "", "nobodys-scheduler"));
  cache.upsert_pod(tolerant("mine", 10000, ""));
  cache.upsert_pod(tolerant("modest", kMaxKeptTolerations, "n1"));
  EXPECT_EQ(cache.reduced_pods(), 2u);

  const autoscaler::CaPod& bound = cache.pod("jhub/bound")->pod;
  EXPECT_TRUE(bound.pod.tolerations.empty());
  EXPECT_TRUE(bound.controller_kind.empty());  // no drain may move it
  ASSERT_NE(bound.annotation(kReducedAnnotation), nullptr);
  EXPECT_EQ(*bound.annotation(kReducedAnnotation),
            "10000 tolerations, beyond the 128 kept: its requests count, no drain may move it");
  EXPECT_TRUE(cache.pod("jhub/elsewhere")->pod.pod.tolerations.empty());
  // The daemon places this one: it keeps what its decision reads.
  EXPECT_EQ(cache.pod("jhub/mine")->pod.pod.tolerations.size(), 10000u);
  EXPECT_EQ(cache.pod("jhub/modest")->pod.pod.tolerations.size(), kMaxKeptTolerations);
  EXPECT_EQ(cache.pod("jhub/modest")->pod.controller_kind, "ReplicaSet");

  // Its requests still count on its node: 2 + 2 of 8 cpus.
  EXPECT_EQ(cpu_by_node(cache.cluster())["n1"], 4000);

  cache.remove_pod("jhub/bound");
  EXPECT_EQ(cache.reduced_pods(), 1u);
  cache.upsert_pod(tolerant("elsewhere", 3, "", "nobodys-scheduler"));
  EXPECT_EQ(cache.reduced_pods(), 0u);
  cache.replace_pods({tolerant("bound", 500, "n1"), tolerant("mine", 500, "")});
  EXPECT_EQ(cache.reduced_pods(), 1u);
}

autoscaler::CaPod labelled(const std::string& name, size_t labels, const std::string& node_name,
                           const std::string& scheduler = "tightpack") {
  autoscaler::CaPod p = pod(name, 500, node_name);
  p.pod.scheduler_name = scheduler;
  Labels all;
  for (size_t i = 0; i < labels; ++i)
    all.emplace_back("example.com/label-" + std::to_string(100000 + i), "some-value-" + name);
  p.pod.labels = std::move(all);
  return p;
}

TEST(ClusterCache, PodsBeyondTheByteBudgetAreStandInsThatFillTheirNode) {
  // Labels and terms cannot be cut without changing other pods' decisions:
  // a pod too heavy to keep is a stand-in, and nothing goes beside it.
  ClusterCache cache;
  cache.set_places([](const Pod& p) { return p.scheduler_name == "tightpack"; });
  cache.replace_nodes({node("n1", 8), node("n2", 8)});
  cache.upsert_pod(labelled("heavy", 2000, "n1"));
  // Twenty on one node still fill it: amounts add as int64s, and 2^62 each
  // wrapped to room (20 x 2^62 is 0 mod 2^64).
  for (int i = 0; i < 19; ++i) cache.upsert_pod(labelled("more-" + std::to_string(i), 2000, "n1"));
  cache.upsert_pod(labelled("waiting", 2000, "", "nobodys-scheduler"));
  cache.upsert_pod(labelled("mine", 2000, ""));
  cache.upsert_pod(labelled("usual", 40, "n2"));
  EXPECT_GT(kept_bytes(labelled("x", 2000, "").pod), kMaxKeptPodBytes);
  EXPECT_LT(kept_bytes(labelled("x", 40, "").pod), kMaxKeptPodBytes / 4);
  EXPECT_EQ(cache.reduced_pods(), 21u);

  const autoscaler::CaPod& heavy = cache.pod("jhub/heavy")->pod;
  EXPECT_TRUE(heavy.pod.labels.empty());
  EXPECT_EQ(heavy.pod.node_name, "n1");
  EXPECT_EQ(heavy.pod.priority, INT32_MAX);  // never a victim
  ASSERT_NE(heavy.annotation(kReducedAnnotation), nullptr);
  EXPECT_NE(heavy.annotation(kReducedAnnotation)->find("beyond the 32768 kept"), std::string::npos);
  EXPECT_TRUE(cache.pod("jhub/waiting")->pod.pod.labels.empty());
  EXPECT_EQ(cache.pod("jhub/mine")->pod.pod.labels.size(), 2000u);  // placed here: whole
  EXPECT_EQ(cache.pod("jhub/usual")->pod.pod.labels.size(), 40u);
  // n1 is full: a 100-millicore pod fits n2 only.
  const auto free_cpu = [&](const std::string& n) {
    const Cluster& c = cache.cluster();
    const NodeIndex i = c.find(n);
    return c.alloc_cpu()[i] - c.req_cpu()[i];
  };
  EXPECT_LT(free_cpu("n1"), 100);
  EXPECT_EQ(free_cpu("n2"), 8000 - 500);
  // Back within the budget: kept whole again, its own 500 millicores.
  for (int i = 0; i < 19; ++i) cache.remove_pod("jhub/more-" + std::to_string(i));
  cache.upsert_pod(labelled("heavy", 10, "n1"));
  EXPECT_EQ(cache.reduced_pods(), 1u);
  EXPECT_EQ(free_cpu("n1"), 8000 - 500);
}

}  // namespace
}  // namespace tightpack::daemon
