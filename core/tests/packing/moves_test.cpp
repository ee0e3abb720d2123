// Move, don't evict: the planner on a cluster of its own, and the pack
// report's `consolidate: move` on a short day of protected Dask workers,
// which cluster-autoscaler cannot evict and so never removes a node of.
#include "tightpack/packing/moves.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <random>
#include <set>

#include "test_util.hpp"
#include "tightpack/autoscaler/autoscaler.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/packing/pack_report.hpp"
#include "tightpack/pod_resources.hpp"

namespace tightpack::packing {
namespace {

namespace json = boost::json;
using testing::bound_pod;
using testing::build_cluster;
using testing::json_of;
using testing::kGi;
using testing::make_node;
using testing::resources;

// n1 holds 2 one-cpu pods, n2 5, n3 7, of 8 cpus each.
struct ThreeNodes {
  std::vector<Pod> pods;
  Cluster cluster;
  ThreeNodes() : cluster(make()) {}
  Cluster make() {
    const std::pair<const char*, int> held[] = {{"n1", 2}, {"n2", 5}, {"n3", 7}};
    for (const auto& [node, count] : held) {
      for (int i = 0; i < count; ++i) {
        pods.push_back(bound_pod(std::string(node) + "-w" + std::to_string(i), node,
                                 resources({{"cpu", 1000}, {"memory", kGi}})));
      }
    }
    return make_from_pods();
  }
  Cluster make_from_pods() const {
    return build_cluster({make_node("n1", 8000, 32 * kGi), make_node("n2", 8000, 32 * kGi),
                          make_node("n3", 8000, 32 * kGi)},
                         pods);
  }
  // Each target of `move` within the room its node had: none overfilled.
  void expect_room_for(const PlannedMove& move) const {
    std::map<std::string, int64_t> taken;
    for (NodeIndex target : move.targets) {
      EXPECT_NE(target, move.node) << "a replacement on the node being emptied";
      taken[cluster.name(target)] += 1000;
    }
    for (const auto& [node, cpu] : taken) {
      const NodeIndex n = cluster.find(node);
      EXPECT_LE(cpu, cluster.alloc_cpu()[n] - cluster.req_cpu()[n]) << node;
    }
  }
  MoveCandidate candidate(const std::string& node) const {
    MoveCandidate c{cluster.find(node), {}};
    for (const Pod& p : pods) {
      if (p.node_name == node) c.movable.push_back(&p);
    }
    return c;
  }
};

TEST(Moves, ReplacementsGoElsewhereWithoutOverfillingAndNoReceiverIsEmptied) {
  ThreeNodes t;
  auto profile = built_in_profile("tightpack");
  ASSERT_TRUE(profile) << profile.error().what();
  auto planned =
      plan_moves(t.cluster, *profile, {t.candidate("n1"), t.candidate("n2"), t.candidate("n3")}, 5);
  ASSERT_TRUE(planned) << planned.error().what();
  // n1's two go to n2 and n3, which then receive and so are not emptied.
  ASSERT_EQ(planned->size(), 1u);
  EXPECT_EQ(t.cluster.name((*planned)[0].node), "n1");
  ASSERT_EQ((*planned)[0].targets.size(), 2u);
  t.expect_room_for((*planned)[0]);
  // The cluster given is not changed.
  EXPECT_EQ(t.cluster.req_cpu()[t.cluster.find("n1")], 2000);
  // n3's seven fit in the nine cpus n1 and n2 have free. A candidate whose
  // pods do not all fit elsewhere is skipped whole: n1 with nine to place
  // (its two and n3's seven) finds four.
  auto alone = plan_moves(t.cluster, *profile, {t.candidate("n3")}, 5);
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->size(), 1u);
  ThreeNodes u;
  MoveCandidate both = u.candidate("n1");
  for (const Pod* p : u.candidate("n3").movable) both.movable.push_back(p);
  auto none = plan_moves(u.cluster, *profile, {both}, 5);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  // At most max_moves.
  auto capped = plan_moves(t.cluster, *profile, {t.candidate("n1")}, 0);
  ASSERT_TRUE(capped);
  EXPECT_TRUE(capped->empty());
}

TEST(Moves, APlanNeverTargetsANodeItEmpties) {
  // n2 first: its five fit n1 and n3 (six and one free), so n2 empties and
  // n1, a receiver, does not.
  ThreeNodes t;
  auto profile = built_in_profile("tightpack");
  ASSERT_TRUE(profile);
  auto planned = plan_moves(t.cluster, *profile, {t.candidate("n2"), t.candidate("n1")}, 5);
  ASSERT_TRUE(planned) << planned.error().what();
  ASSERT_EQ(planned->size(), 1u);
  EXPECT_EQ(t.cluster.name((*planned)[0].node), "n2");
  EXPECT_EQ((*planned)[0].targets.size(), 5u);
  t.expect_room_for((*planned)[0]);
}

TEST(Moves, APodThatToleratesEveryTaintIsNotSentToANodeBeingEmptied) {
  // Such a pod passes NodeUnschedulable, and the default profile (least
  // allocated) would send n1's own pods back to n1, the emptiest node.
  ThreeNodes t;
  for (Pod& p : t.pods) p.tolerations.push_back(Toleration{"", "Exists", "", "", std::nullopt});
  t.cluster = t.make_from_pods();
  auto profile = built_in_profile("default");
  ASSERT_TRUE(profile);
  auto planned = plan_moves(t.cluster, *profile, {t.candidate("n1"), t.candidate("n2")}, 5);
  ASSERT_TRUE(planned) << planned.error().what();
  for (const PlannedMove& m : *planned) t.expect_room_for(m);
}

// A pool of 3 to 12 nodes of 8 cpus: protected workers of a few workloads
// (movable), bare pods (not), DaemonSet pods on some nodes, cordoned nodes, a
// random min size; the planner's promises checked on every plan.
autoscaler::AutoscaleScenario random_pool(std::mt19937_64& rng) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  autoscaler::AutoscaleScenario s;
  autoscaler::NodeGroupSpec g;
  g.name = "workers";
  const int64_t nodes = pick(3, 12);
  for (int64_t i = 0; i < nodes; ++i) {
    autoscaler::CaNode n{make_node("n" + std::to_string(i), 8000, 32 * kGi), true, false};
    n.node.unschedulable = pick(0, 9) == 0;
    n.scale_down_disabled = pick(0, 14) == 0;
    g.nodes.push_back(n.node.name);
    s.nodes.push_back(std::move(n));
  }
  g.min_size = pick(0, nodes);
  g.max_size = 20;
  s.groups.push_back(g);
  std::vector<int64_t> free(static_cast<size_t>(nodes), 8000);
  for (int64_t i = 0; i < pick(4, 40); ++i) {
    const size_t n = static_cast<size_t>(pick(0, nodes - 1));
    const int64_t cpu = 250 * pick(1, 12);
    if (cpu > free[n]) continue;
    free[n] -= cpu;
    autoscaler::CaPod p;
    p.pod = bound_pod("p" + std::to_string(i), s.nodes[n].node.name,
                      resources({{"cpu", cpu}, {"memory", cpu * kGi / 1000}}));
    p.pod.ns = "jhub";
    const int64_t kind = pick(0, 9);
    if (kind < 7) {  // a protected worker of one of four workloads
      const std::string workload = "w" + std::to_string(pick(0, 3));
      p.pod.labels = Labels{{"dask.org/component", "worker"}, {"workload", workload}};
      p.pod.annotations = {{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"}};
      p.controller_kind = "ReplicaSet";
      p.controller_name = "rs-" + p.pod.name;
      s.controllers.insert("ReplicaSet/jhub/" + p.controller_name);
      if (pick(0, 4) == 0)
        p.pod.tolerations.push_back(Toleration{"", "Exists", "", "", std::nullopt});
    } else if (kind < 9) {
      p.daemon_set = true;
      p.controller_kind = "DaemonSet";
      p.controller_name = "ds";
    }  // else a bare pod: keeps its node
    s.pods.push_back(std::move(p));
  }
  return s;
}

TEST(Moves, RandomPoolsKeepThePlannersPromises) {
  auto profile = built_in_profile("tightpack");
  ASSERT_TRUE(profile);
  std::mt19937_64 rng(41);
  int64_t planned = 0;
  for (int round = 0; round < 300; ++round) {
    const autoscaler::AutoscaleScenario s = random_pool(rng);
    MoveRules rules;
    rules.max_moves = 1 + round % 4;
    rules.workload_of = [](const autoscaler::CaPod& p) {
      const std::string* w = find_label(p.pod.labels, "workload");
      return w ? *w : std::string();
    };
    auto moves = plan_scenario_moves(
        s, *profile, [](const autoscaler::CaPod& p) { return movable_dask_worker(p, true); },
        rules);
    ASSERT_TRUE(moves) << moves.error().what();
    SCOPED_TRACE("round " + std::to_string(round));
    ASSERT_LE(moves->size(), rules.max_moves);
    std::set<std::string> emptied, workloads;
    std::map<std::string, const autoscaler::CaNode*> nodes;
    for (const autoscaler::CaNode& n : s.nodes) nodes[n.node.name] = &n;
    for (const ScenarioMove& m : *moves) {
      EXPECT_TRUE(emptied.insert(m.node).second);
      // A cordoned node may be emptied (its owner wants it gone), never filled.
      EXPECT_FALSE(nodes.at(m.node)->scale_down_disabled);
    }
    // Every pod of an emptied node but DaemonSet pods moves, to a node that
    // is neither emptied nor cordoned nor an empty one cluster-autoscaler
    // removes without the moves; one move per workload.
    autoscaler::AutoscaleScenario asked = s;
    asked.scale_down = true;
    const boost::json::value ca = autoscaler::run_autoscale(asked);
    std::set<std::string> removed_anyway;
    if (const auto* down = ca.as_object().if_contains("scaleDown")) {
      for (const auto& n : down->at("unneeded").as_array()) {
        removed_anyway.insert(std::string(n.as_string()));
      }
    }
    for (const autoscaler::CaPod& p : s.pods) {
      if (!p.daemon_set && !p.mirror) removed_anyway.erase(p.pod.node_name);
    }
    std::set<std::string> moved;
    for (const ScenarioMove& m : *moves) {
      std::set<std::string> mine;
      for (const auto& [pod, to] : m.pods) {
        moved.insert(pod);
        EXPECT_FALSE(emptied.contains(to)) << pod << " to " << to;
        EXPECT_FALSE(nodes.at(to)->node.unschedulable) << pod << " to " << to;
        EXPECT_FALSE(removed_anyway.contains(to)) << pod << " to " << to;
      }
      for (const autoscaler::CaPod& p : s.pods) {
        if (p.pod.node_name != m.node || p.daemon_set) continue;
        EXPECT_TRUE(moved.contains(p.pod.key())) << p.pod.key() << " stays on " << m.node;
        const std::string* w = find_label(p.pod.labels, "workload");
        ASSERT_TRUE(w);
        mine.insert(*w);
      }
      for (const std::string& w : mine) EXPECT_TRUE(workloads.insert(w).second) << w;
    }
    // No node over its allocatable afterwards, and no group below its min.
    const autoscaler::AutoscaleScenario after = after_moves(s, *moves);
    std::map<std::string, int64_t> cpu;
    for (const autoscaler::CaPod& p : after.pods) {
      const ResourceList r = pod_requests(p.pod, false);
      const int64_t* c = find_resource(r, "cpu");
      cpu[p.pod.node_name] += c ? *c : 0;
    }
    for (const auto& [node, used] : cpu) EXPECT_LE(used, 8000) << node;
    EXPECT_LE(static_cast<int64_t>(moves->size()),
              static_cast<int64_t>(s.nodes.size()) - s.groups[0].min_size);
    planned += static_cast<int64_t>(moves->size());
  }
  EXPECT_GT(planned, 150);  // the pools give the planner work
}

TEST(Moves, AReplacementTakesANameNoPodHas) {
  autoscaler::AutoscaleScenario s;
  for (const char* name : {"w", "w-moved", "w-moved-2"}) {
    autoscaler::CaPod p;
    p.pod = bound_pod(name, "n1", resources({{"cpu", 100}}));
    p.pod.ns = "jhub";
    s.pods.push_back(std::move(p));
  }
  const autoscaler::AutoscaleScenario after =
      after_moves(s, {ScenarioMove{"n1", {{"jhub/w", "n2"}}}});
  ASSERT_EQ(after.pods.size(), 3u);
  EXPECT_EQ(after.pods.back().pod.name, "w-moved-3");
  EXPECT_EQ(after.pods.back().pod.node_name, "n2");
}

json::object worker(const char* cpu) {
  return json::object{
      {"metadata",
       json::object{{"name", "worker"},
                    {"namespace", "jhub"},
                    {"labels", json::object{{"dask.org/component", "worker"}}},
                    {"annotations",
                     json::object{{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"}}},
                    {"ownerReferences", json::array{json::object{{"apiVersion", "apps/v1"},
                                                                 {"kind", "ReplicaSet"},
                                                                 {"name", "w"},
                                                                 {"controller", true}}}}}},
      {"spec",
       json::object{
           {"containers",
            json::array{json::object{
                {"name", "worker"},
                {"resources",
                 json::object{{"requests", json::object{{"cpu", cpu}, {"memory", "4Gi"}}}}}}}},
           {"tolerations", json::array{json::object{{"key", "dask"},
                                                    {"operator", "Equal"},
                                                    {"value", "worker"},
                                                    {"effect", "NoSchedule"}}}},
           {"nodeSelector", json::object{{"cloud.google.com/gke-nodepool", "dask-workers"}}}}}};
}

// Three clusters of eight 0.9-cpu protected workers fill three new nodes;
// at 30 minutes two shrink to two workers each and stay so until 2 hours.
json::object day(const char* consolidate, bool change_mid_move = false, bool late_arrival = false,
                 const char* late_cpu = "900m") {
  json::value doc = json_of(R"({
    "cluster": {"nodes": [{"metadata": {"name": "core-0", "labels": {
        "cloud.google.com/gke-nodepool": "core"}},
      "status": {"allocatable": {"cpu": "3920m", "memory": "12Gi", "pods": "110"}}}], "pods": []},
    "pools": {"apiVersion": "tightpack.io/v1alpha1", "kind": "NodePools", "inferPools": false,
      "pools": [
        {"name": "core", "minSize": 1, "maxSize": 1, "template": {
          "labels": {"cloud.google.com/gke-nodepool": "core"},
          "allocatable": {"cpu": "3920m", "memory": "12Gi", "pods": "110"}}},
        {"name": "dask-workers", "minSize": 0, "maxSize": 10, "template": {
          "labels": {"cloud.google.com/gke-nodepool": "dask-workers"},
          "taints": [{"key": "dask", "value": "worker", "effect": "NoSchedule"}],
          "allocatable": {"cpu": "7910m", "memory": "60Gi", "pods": "110"}}}]},
    "events": [], "end": "3h", "profiles": ["tightpack"]})");
  json::object& o = doc.as_object();
  o["consolidate"] = consolidate;
  json::array& events = o["events"].emplace_array();
  for (const char* group : {"a", "b", "c"}) {
    events.push_back(
        json::object{{"at", "0s"}, {"start", group}, {"replicas", 8}, {"pod", worker("900m")}});
    events.push_back(json::object{{"at", "2h"}, {"stop", group}});
  }
  for (const char* group : {"a", "b"}) {
    events.push_back(json::object{{"at", "30m"}, {"scale", group}, {"replicas", 2}});
    // The users ask again for the size they have while the first move is in flight.
    if (change_mid_move)
      events.push_back(json::object{{"at", "2130s"}, {"scale", group}, {"replicas", 2}});
  }
  // A fourth cluster arrives once the node is emptied, before
  // cluster-autoscaler removes it.
  if (late_arrival) {
    events.push_back(
        json::object{{"at", "38m"}, {"start", "d"}, {"replicas", 6}, {"pod", worker(late_cpu)}});
    events.push_back(json::object{{"at", "2h"}, {"stop", "d"}});
  }
  return o;
}

ProfileFigures tightpack_of(const json::object& doc) {
  auto s = decode_pack_scenario(doc);
  EXPECT_TRUE(s) << (s ? "" : s.error().what());
  auto r = run_pack_report(*s);
  EXPECT_TRUE(r) << (r ? "" : r.error().what());
  return r->profiles.at(0);
}

TEST(Moves, AHalfUsedNodeOfProtectedWorkersIsEmptiedAndRemoved) {
  const ProfileFigures none = tightpack_of(day("none"));
  const ProfileFigures move = tightpack_of(day("move"));
  EXPECT_EQ(none.pods_evicted, 0);
  EXPECT_EQ(move.pods_evicted, 0);
  EXPECT_EQ(none.pending_at_end, 0);
  EXPECT_EQ(move.pending_at_end, 0);
  EXPECT_EQ(none.nodes_emptied, 0);
  // At 35 minutes (settled for five) a's two workers join b's on one node;
  // the emptied node goes after cluster-autoscaler's ten unneeded minutes.
  EXPECT_EQ(move.nodes_emptied, 1);
  EXPECT_EQ(move.moves, 1);
  EXPECT_EQ(move.tasks_interrupted, 0);
  EXPECT_EQ(move.workers_moved, 2);
  EXPECT_EQ(move.moves_abandoned, 0);
  EXPECT_NEAR(move.move_overlap_worker_hours, 2.0 / 60.0, 1e-9);  // two replacements, a minute
  EXPECT_LT(move.node_hours, none.node_hours - 1.0);              // about 70 minutes of a node
}

TEST(Moves, AChangeOfSizeMidMoveAbandonsItAndTheNextOneCompletes) {
  const ProfileFigures move = tightpack_of(day("move", /*change_mid_move=*/true));
  EXPECT_EQ(move.moves_abandoned, 1);
  EXPECT_EQ(move.nodes_emptied, 2);  // made twice, broken once
  EXPECT_EQ(move.moves, 1);
  EXPECT_EQ(move.tasks_interrupted, 0);
  EXPECT_EQ(move.workers_moved, 2);
  EXPECT_EQ(move.pending_at_end, 0);
  EXPECT_EQ(move.pods_evicted, 0);
}

TEST(Moves, APodThatWaitsTakesAnEmptiedNodeBack) {
  // Without the move the fourth cluster needs a new node; with it, the node
  // the move emptied takes it at once: no one waits for a node because of a
  // move.
  const ProfileFigures none = tightpack_of(day("none", false, /*late_arrival=*/true));
  const ProfileFigures move = tightpack_of(day("move", false, /*late_arrival=*/true));
  EXPECT_EQ(move.nodes_emptied, 1);
  EXPECT_EQ(move.emptied_taken_back, 1);
  EXPECT_LE(move.nodes_added, none.nodes_added);
  EXPECT_LE(move.pending_pod_hours, none.pending_pod_hours);
  EXPECT_EQ(move.pending_at_end, 0);
}

TEST(Moves, APodTheEmptiedNodeCannotHoldLeavesItEmptied) {
  // Workers of 7950m fit no node of 7910m allocatable: they wait until their
  // cluster stops (no pool can hold them), and must not take back the node
  // being emptied, which cluster-autoscaler then removes.
  const ProfileFigures none = tightpack_of(day("none", false, true, "7950m"));
  const ProfileFigures move = tightpack_of(day("move", false, true, "7950m"));
  EXPECT_EQ(move.nodes_emptied, 1);
  EXPECT_EQ(move.emptied_taken_back, 0);
  EXPECT_NEAR(move.pending_pod_hours, none.pending_pod_hours, 1e-9);
  EXPECT_LT(move.node_hours, none.node_hours - 1.0);
}

TEST(Moves, TheScenarioNamesABadValueAndMovesNeedPools) {
  json::object bad = day("yes");
  auto s = decode_pack_scenario(bad);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().what().find("$.consolidate"), std::string::npos) << s.error().what();
  EXPECT_NE(s.error().what().find("not one of none, move"), std::string::npos);
  json::object bare = day("move");
  bare.erase("pools");
  auto t = decode_pack_scenario(bare);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().what().find("moves need the scenario's pools"), std::string::npos);
}

}  // namespace
}  // namespace tightpack::packing
