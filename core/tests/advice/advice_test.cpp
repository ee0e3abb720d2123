#include "tightpack/advice/advice.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "test_util.hpp"
#include "tightpack/pod_resources.hpp"
#include "tightpack/simulate.hpp"

namespace tightpack::advice {
namespace {
namespace json = boost::json;

std::string read(const std::string& path) {
  std::ifstream f(std::string(TIGHTPACK_SOURCE_DIR) + "/" + path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// examples/advise/pools.yaml, the DaskHub day's pools.
constexpr const char* kDayPools = R"({"apiVersion": "tightpack.io/v1alpha1", "kind": "NodePools",
  "expander": "least-waste", "inferPools": false, "pools": [
  {"name": "core", "minSize": 1, "maxSize": 3, "template": {
    "labels": {"cloud.google.com/gke-nodepool": "core", "hub.jupyter.org/node-purpose": "core"},
    "allocatable": {"cpu": "3920m", "memory": "12Gi", "pods": "110"}}},
  {"name": "user", "minSize": 0, "maxSize": 20, "template": {
    "labels": {"cloud.google.com/gke-nodepool": "user", "hub.jupyter.org/node-purpose": "user"},
    "taints": [{"key": "hub.jupyter.org/dedicated", "value": "user", "effect": "NoSchedule"}],
    "allocatable": {"cpu": "7910m", "memory": "48Gi", "pods": "110"}}},
  {"name": "dask-workers", "minSize": 0, "maxSize": MAX, "preemptible": true, "template": {
    "labels": {"cloud.google.com/gke-nodepool": "dask-workers"},
    "taints": [{"key": "dask", "value": "worker", "effect": "NoSchedule"}],
    "allocatable": {"cpu": "7910m", "memory": "60Gi", "pods": "110"}}},
  {"name": "gpu-t4", "minSize": 0, "maxSize": 4, "provisioningTime": "10m", "template": {
    "labels": {"cloud.google.com/gke-nodepool": "gpu-t4", "cloud.google.com/gke-accelerator": "nvidia-tesla-t4"},
    "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
    "allocatable": {"cpu": "7910m", "memory": "26Gi", "pods": "110", "nvidia.com/gpu": "1"}}}]})";

WhatIfCluster day_cluster(int max_workers_nodes = 40) {
  std::string pools = kDayPools;
  pools.replace(pools.find("MAX"), 3, std::to_string(max_workers_nodes));
  auto c = load_what_if_cluster(read("examples/advise/cluster.json"), pools, "");
  if (!c) ADD_FAILURE() << c.error().what();
  return std::move(*c);
}

// The sidebar's demo: examples/daskhub-gke with its home-disk pools (a full T4
// pool, a second one in another zone, dask-workers at max size 10).
WhatIfCluster demo_cluster() {
  WhatIfInputs in;
  in.snapshot = {"cluster", json::parse(read("examples/daskhub-gke/cluster.json"))};
  in.pools = {"pools", json::parse(read("labextension/jupyterlab_tightpack/demo/pools.json"))};
  auto c = load_what_if_cluster(in);
  if (!c) ADD_FAILURE() << c.error().what();
  return std::move(*c);
}

json::object worker(const std::string& cpu, const std::string& memory, bool tolerate, bool select,
                    const std::string& gpus = "") {
  json::object requests{{"cpu", cpu}, {"memory", memory}};
  json::object limits{{"cpu", cpu}, {"memory", memory}};
  if (!gpus.empty()) {
    requests["nvidia.com/gpu"] = gpus;
    limits["nvidia.com/gpu"] = gpus;
  }
  json::object spec{
      {"containers", json::array{json::object{{"name", "worker"},
                                              {"resources", json::object{{"requests", requests},
                                                                         {"limits", limits}}}}}}};
  if (tolerate) {
    spec["tolerations"] = json::array{json::object{
        {"key", "dask"}, {"operator", "Equal"}, {"value", "worker"}, {"effect", "NoSchedule"}}};
  }
  if (select)
    spec["nodeSelector"] = json::object{{"cloud.google.com/gke-nodepool", "dask-workers"}};
  return json::object{{"metadata", json::object{{"name", "dask-worker"}, {"namespace", "jhub"}}},
                      {"spec", std::move(spec)}};
}

json::object ask(WhatIfCluster& c, const json::object& pod, int64_t replicas,
                 const std::string& profile = "most-allocated") {
  json::object request{{"pod", pod}, {"profile", profile}};
  if (replicas > 0) request["replicas"] = replicas;
  json::value answer = json::parse(advise_text(c, json::serialize(request)));
  EXPECT_FALSE(answer.as_object().contains("error")) << answer;
  return answer.as_object();
}

const json::object* pool_named(const json::object& advice, const std::string& pool) {
  for (const auto& p : advice.at("pools").as_array()) {
    if (p.at("pool").as_string() == pool) return &p.as_object();
  }
  return nullptr;
}

TEST(Tiling, FourCpuWorkersTileTheNodeAt3950m) {
  WhatIfCluster c = day_cluster();
  json::object a = ask(c, worker("4", "16Gi", true, true), 0);
  const json::object* p = pool_named(a, "dask-workers");
  ASSERT_NE(p, nullptr) << a;
  EXPECT_EQ(p->at("perNode").as_int64(), 1);
  EXPECT_EQ(p->at("binding").as_string(), "cpu");
  EXPECT_NEAR(p->at("idle").at("cpu").as_double(), (7910.0 - 4000.0) / 7910.0, 1e-9);
  EXPECT_TRUE(p->at("worthTiling").as_bool());
  const auto& s = p->at("suggestions").as_array();
  ASSERT_GE(s.size(), 2u);
  EXPECT_EQ(s[0].at("perNode").as_int64(), 2);
  EXPECT_EQ(s[0].at("requests").at("cpu").as_string(), "3950m");
  EXPECT_EQ(s[0].at("requests").at("memory").as_string(), "16Gi");
  EXPECT_NEAR(s[0].at("change").at("cpu").as_double(), -0.0125, 1e-12);
  EXPECT_EQ(s[0].at("change").at("memory").as_double(), 0.0);
  EXPECT_EQ(s[1].at("perNode").as_int64(), 3);
  EXPECT_EQ(s[1].at("requests").at("cpu").as_string(), "2630m");
  // Four per node would ask for under half the cpus: not suggested.
  EXPECT_EQ(s.size(), 2u);
  // Only the pools the worker is meant for and admitted by: the core pool
  // (the hub's), the GPU pool and the user pool (its selector) are not tiled.
  EXPECT_EQ(a.at("pools").as_array().size(), 1u);
}

TEST(Tiling, OneCpuWorkersGainAnEighthAt985m) {
  WhatIfCluster c = day_cluster();
  json::object a = ask(c, worker("1", "4Gi", true, true), 0);
  const json::object* p = pool_named(a, "dask-workers");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->at("perNode").as_int64(), 7);
  EXPECT_TRUE(p->at("worthTiling").as_bool());  // 910m of 7910m idle: 11.5 %
  EXPECT_EQ(p->at("suggestions").at(0).at("requests").at("cpu").as_string(), "985m");
  EXPECT_EQ(p->at("suggestions").at(0).at("perNode").as_int64(), 8);
}

TEST(Tiling, WorkersThatFillTheNodeAreNotWorthAWord) {
  WhatIfCluster c = day_cluster();
  json::object a = ask(c, worker("3950m", "16Gi", true, true), 0);
  const json::object* p = pool_named(a, "dask-workers");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->at("perNode").as_int64(), 2);
  EXPECT_FALSE(p->at("worthTiling").as_bool());
}

TEST(Tiling, MemoryBindsTogetherWithCpuKeepsTheProportion) {
  // 2 cpus and 20Gi on a 60Gi node: three fit (cpu 6000 of 7910, memory 60 of
  // 60); the fourth is short of both, so both shrink by one factor.
  WhatIfCluster c = day_cluster();
  json::object a = ask(c, worker("2", "20Gi", true, true), 0);
  const json::object* p = pool_named(a, "dask-workers");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->at("perNode").as_int64(), 3);
  const auto& first = p->at("suggestions").at(0).as_object();
  EXPECT_EQ(first.at("perNode").as_int64(), 4);
  const double cpu = first.at("change").at("cpu").as_double();
  const double memory = first.at("change").at("memory").as_double();
  EXPECT_LT(cpu, 0);
  EXPECT_LT(memory, 0);
  EXPECT_NEAR(cpu, memory, 0.01);  // one factor, then each rounded down
}

TEST(Tiling, GpusStayWhole) {
  WhatIfCluster c = day_cluster();
  json::object pod = worker("3", "16Gi", false, false, "1");
  pod["spec"].as_object()["tolerations"] = json::array{
      json::object{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}};
  json::object a = ask(c, pod, 0);
  const json::object* p = pool_named(a, "gpu-t4");
  ASSERT_NE(p, nullptr) << a;
  EXPECT_EQ(p->at("perNode").as_int64(), 1);
  EXPECT_EQ(p->at("binding").as_string(), "nvidia.com/gpu");
  EXPECT_TRUE(p->at("suggestions").as_array().empty());
  EXPECT_FALSE(p->at("worthTiling").as_bool());
}

TEST(Advise, FortyFourCpuWorkersRunOnTwentyNodesAt3950m) {
  WhatIfCluster c = day_cluster();
  json::object a = ask(c, worker("4", "16Gi", true, true), 40);
  EXPECT_EQ(a.at("asIs").at("afterScaleUp").as_int64(), 40);
  EXPECT_EQ(a.at("asIs").at("nodes").as_int64(), 40);
  const auto& first = pool_named(a, "dask-workers")->at("suggestions").at(0).as_object();
  EXPECT_EQ(first.at("requests").at("cpu").as_string(), "3950m");
  EXPECT_EQ(first.at("outcome").at("afterScaleUp").as_int64(), 40);
  EXPECT_EQ(first.at("outcome").at("nodes").as_int64(), 20);
  // Every copy runs where it is meant to: nothing to fix.
  EXPECT_TRUE(a.at("fixes").as_array().empty());
}

TEST(Advise, NeedsPools) {
  auto c = load_what_if_cluster(read("examples/daskhub-demo/cluster.json"), "", "");
  ASSERT_TRUE(c);
  WhatIfInputs in;
  in.snapshot = {"cluster", json::parse(read("examples/daskhub-demo/cluster.json"))};
  in.infer_pools = false;
  auto bare = load_what_if_cluster(in);
  ASSERT_TRUE(bare);
  const std::string answer =
      advise_text(*bare, json::serialize(json::object{{"pod", worker("1", "4Gi", true, false)}}));
  EXPECT_NE(answer.find("advice needs node pools"), std::string::npos) << answer;
}

// The newcomer's cases on the sidebar's demo (issue 39): every fix is about
// the pool the workers are meant for, never the hub's core pool or a GPU pool.
void expect_only_meant_fixes(const json::object& a) {
  for (const auto& f : a.at("fixes").as_array()) {
    const json::value& pool = f.at("pool");
    if (pool.is_string()) {
      EXPECT_NE(pool.as_string(), "core-pool") << f;
      EXPECT_EQ(pool.as_string().find("gpu"), std::string::npos) << f;
    }
    if (const json::value* t = f.at("change").as_object().if_contains("addTolerations")) {
      for (const auto& tol : t->as_array())
        EXPECT_NE(tol.at("key").as_string(), "nvidia.com/gpu") << f;
    }
    EXPECT_LE(f.at("outcome").at("offPool").as_int64(), a.at("asIs").at("offPool").as_int64());
  }
}

TEST(Fixes, CpuWorkersThatNeverRunAreNotSentToGpuOrHubPools) {
  WhatIfCluster c = demo_cluster();
  json::object a = ask(c, worker("1", "4Gi", true, false), 400);
  EXPECT_EQ(a.at("asIs").at("never").as_int64(), 337);
  expect_only_meant_fixes(a);
  const auto& fixes = a.at("fixes").as_array();
  ASSERT_FALSE(fixes.empty());
  // The fix: select the worker pool and have it grow; all 400 then run there.
  const auto& first = fixes.front().as_object();
  EXPECT_EQ(first.at("pool").as_string(), "dask-workers");
  EXPECT_EQ(first.at("change").at("addNodeSelector").at("cloud.google.com/gke-nodepool"),
            "dask-workers");
  EXPECT_TRUE(first.at("byOperator").as_bool());
  EXPECT_EQ(first.at("outcome").at("never").as_int64(), 0);
  EXPECT_EQ(first.at("outcome").at("offPool").as_int64(), 0);
  // Fewer workers comes last, and makes all of them run.
  const auto& last = fixes.back().as_object();
  EXPECT_EQ(last.at("change").at("replicas").as_int64(), 63);
  EXPECT_EQ(last.at("outcome").at("never").as_int64(), 0);
}

TEST(Fixes, WorkersWithoutTheTolerationAreToldTheWorkerPoolsOnly) {
  WhatIfCluster c = demo_cluster();
  json::object a = ask(c, worker("1", "4Gi", false, false), 400);
  expect_only_meant_fixes(a);
  const auto& first = a.at("fixes").at(0).at("change").as_object();
  EXPECT_EQ(first.at("addTolerations").at(0).at("key").as_string(), "dask");
}

TEST(Fixes, ASelectorThatIsRightIsNeverChanged) {
  // The worker already selects dask-workers, which is at its max size.
  WhatIfCluster c = demo_cluster();
  json::object a = ask(c, worker("4", "16Gi", true, true), 40);
  EXPECT_EQ(a.at("asIs").at("never").as_int64(), 32);
  expect_only_meant_fixes(a);
  for (const auto& f : a.at("fixes").as_array())
    EXPECT_FALSE(f.at("change").as_object().contains("addNodeSelector")) << f;
  // The fix: the tiling shape, with the room it then needs.
  const auto& first = a.at("fixes").at(0).as_object();
  EXPECT_EQ(first.at("change").at("requests").at("cpu").as_string(), "3850m");
  EXPECT_EQ(first.at("maxSize").at("to").as_int64(), 22);
  EXPECT_EQ(first.at("outcome").at("nodesAdded").as_int64(), 20);
}

TEST(Fixes, WorkersOnTheHubsPoolAreToldToSelectTheirOwn) {
  WhatIfCluster c = demo_cluster();
  json::object a = ask(c, worker("1", "4Gi", true, false), 20);
  EXPECT_EQ(a.at("asIs").at("never").as_int64(), 0);
  EXPECT_EQ(a.at("asIs").at("offPool").as_int64(), 7);
  const auto& first = a.at("fixes").at(0).as_object();
  EXPECT_EQ(first.at("change").at("addNodeSelector").at("cloud.google.com/gke-nodepool"),
            "dask-workers");
  EXPECT_FALSE(first.at("byOperator").as_bool());
  EXPECT_EQ(first.at("outcome").at("offPool").as_int64(), 0);
  EXPECT_EQ(first.at("outcome").at("never").as_int64(), 0);
}

TEST(Fixes, GpuWorkersThatAllRunNeedNoFix) {
  WhatIfCluster c = demo_cluster();
  json::object gpu = worker("3", "20Gi", true, false, "1");
  gpu["spec"].as_object()["tolerations"].as_array().push_back(
      json::object{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}});
  json::object a = ask(c, gpu, 4);
  EXPECT_TRUE(a.at("fixes").as_array().empty());
  // A pool without GPUs is no size for them.
  EXPECT_EQ(pool_named(a, "dask-workers"), nullptr);
}

TEST(Fixes, NotebookServersAreNeverSentToTheDaskWorkersPool) {
  // A notebook too large for the core pool's nodes (3920m): the Dask worker
  // pool's 7910m nodes would take it with the worker toleration, but its
  // taint reserves them for Dask workers.
  WhatIfCluster c = demo_cluster();
  json::object notebook = worker("6", "8Gi", false, false);
  notebook["metadata"].as_object()["labels"] = json::object{{"component", "singleuser-server"}};
  json::object a = ask(c, notebook, 1);
  EXPECT_EQ(a.at("asIs").at("never").as_int64(), 1);
  bool reserved = false;
  for (const auto& n : a.at("notMeant").as_array())
    reserved = reserved || (n.at("pool") == "dask-workers" && n.at("why") == "reserved");
  EXPECT_TRUE(reserved) << a;
  for (const auto& f : a.at("fixes").as_array()) {
    EXPECT_FALSE(f.at("change").as_object().contains("addTolerations")) << f;
    EXPECT_NE(f.at("pool"), "dask-workers") << f;
  }
  // The same pod as a Dask worker is meant for that pool, and told to tolerate it.
  json::object daskish = worker("6", "8Gi", false, false);
  daskish["metadata"].as_object()["labels"] = json::object{{"dask.org/component", "worker"}};
  json::object w = ask(c, daskish, 1);
  ASSERT_FALSE(w.at("fixes").as_array().empty()) << w;
  EXPECT_EQ(w.at("fixes").at(0).at("change").at("addTolerations").at(0).at("key"), "dask");
}

// The property: a fix, applied to the pod (and the pools) as a front end
// applies it, decided again, gives the outcome the fix promised and more
// copies running where they are meant to.
json::object applied(json::object pod, const json::object& change) {
  json::object& spec = pod["spec"].as_object();
  if (const json::value* t = change.if_contains("addTolerations")) {
    json::array& tolerations = spec["tolerations"].emplace_array();
    if (const json::value* old = pod.at("spec").as_object().if_contains("tolerations");
        old && old->is_array())
      tolerations = old->as_array();
    for (const auto& x : t->as_array()) tolerations.push_back(x);
  }
  if (const json::value* s = change.if_contains("addNodeSelector")) {
    json::value& selector = spec["nodeSelector"];
    if (!selector.is_object()) selector = json::object{};
    for (const auto& kv : s->as_object()) selector.as_object()[kv.key()] = kv.value();
  }
  if (const json::value* r = change.if_contains("containerRequests")) {
    for (auto& c : spec["containers"].as_array()) {
      if (c.at("name") != change.at("container")) continue;
      json::object& resources = c.as_object()["resources"].as_object();
      for (const auto& kv : r->as_object()) {
        json::object& requests = resources["requests"].as_object();
        json::object& limits = resources["limits"].as_object();
        if (limits.contains(kv.key()) && limits.at(kv.key()) == requests.at(kv.key()))
          limits[kv.key()] = kv.value();
        requests[kv.key()] = kv.value();
      }
    }
  }
  return pod;
}

void expect_fixes_hold(const std::string& pools_text, const json::object& pod, int64_t replicas) {
  auto load = [&](const std::string& pools) {
    auto c = load_what_if_cluster(read("examples/daskhub-gke/cluster.json"), pools, "");
    EXPECT_TRUE(c) << c.error().what();
    return std::move(*c);
  };
  WhatIfCluster c = load(pools_text);
  json::object a = ask(c, pod, replicas);
  const int64_t meant_before = a.at("asIs").at("now").as_int64() +
                               a.at("asIs").at("afterScaleUp").as_int64() -
                               a.at("asIs").at("offPool").as_int64();
  for (const auto& f : a.at("fixes").as_array()) {
    const json::object& change = f.at("change").as_object();
    json::value pools = json::parse(pools_text);
    if (const json::value* m = f.as_object().if_contains("maxSize")) {
      for (auto& p : pools.at("pools").as_array()) {
        if (p.at("name") == m->at("pool")) p.as_object()["maxSize"] = m->at("to");
      }
    }
    WhatIfCluster changed = load(json::serialize(pools));
    const int64_t n = change.contains("replicas") ? change.at("replicas").as_int64() : replicas;
    json::object again = ask(changed, applied(pod, change), n);
    EXPECT_EQ(again.at("asIs"), f.at("outcome")) << f;
    const auto& o = again.at("asIs");
    const int64_t meant_after =
        o.at("now").as_int64() + o.at("afterScaleUp").as_int64() - o.at("offPool").as_int64();
    if (change.contains("replicas")) {
      EXPECT_EQ(o.at("never").as_int64(), 0) << f;
    } else {
      EXPECT_GT(meant_after, meant_before) << f;
    }
    EXPECT_LE(o.at("offPool").as_int64(), a.at("asIs").at("offPool").as_int64()) << f;
  }
}

TEST(Fixes, EveryFixAppliedAndDecidedAgainDoesWhatItSays) {
  const std::string pools = read("labextension/jupyterlab_tightpack/demo/pools.json");
  json::object gpu = worker("3", "20Gi", false, false, "1");
  json::object big = worker("12", "40Gi", true, true);
  for (const json::object& pod :
       {worker("1", "4Gi", true, false), worker("1", "4Gi", false, false),
        worker("4", "16Gi", true, true), worker("1800m", "12Gi", true, false), gpu, big}) {
    for (int64_t replicas : {1, 7, 40, 400}) {
      SCOPED_TRACE(json::serialize(pod) + " x " + std::to_string(replicas));
      expect_fixes_hold(pools, pod, replicas);
    }
  }
}

// Each suggestion, placed on the pool's new node alone: exactly perNode
// copies fit, and no resource asks for more than the pod did.
TEST(Tiling, SuggestionsFitExactlyPerNodeAndNeverAskForMore) {
  WhatIfCluster c = demo_cluster();
  const auto templates =
      pools::pool_templates(c.snapshot(), *c.resolved_pools(), *c.pools_config());
  auto profile = c.profile("most-allocated", Pod{});
  ASSERT_TRUE(profile);
  for (const char* cpu : {"1", "1800m", "4", "3", "250m"}) {
    for (const char* memory : {"4Gi", "12Gi", "20Gi", "1Gi"}) {
      auto decoded = decode_pod(json::value(worker(cpu, memory, true, false)), JsonPath());
      ASSERT_TRUE(decoded);
      auto tiling = tile(templates, c.snapshot().objects, *profile, *decoded);
      ASSERT_TRUE(tiling) << tiling.error().what();
      for (const PoolTiling& t : *tiling) {
        const auto& tmpl = *std::find_if(templates.begin(), templates.end(),
                                         [&](const auto& x) { return x.pool == t.pool; });
        for (const Shape& s : t.suggestions) {
          SCOPED_TRACE(std::string(cpu) + "/" + memory + " on " + t.pool + " at " +
                       std::to_string(s.per_node));
          auto smaller = resized(*decoded, s.requests);
          ASSERT_TRUE(smaller);
          for (const auto& [name, v] : s.requests) {
            EXPECT_LE(v, *find_resource(pod_requests(*decoded, false), name));
          }
          auto one = Cluster::build({tmpl.node.node}, tmpl.node.pods, c.snapshot().objects);
          ASSERT_TRUE(one);
          auto placed = simulate_replicas(*one, *profile, *smaller, s.per_node + 1);
          ASSERT_TRUE(placed);
          EXPECT_EQ(std::count_if(placed->replicas.begin(), placed->replicas.end(),
                                  [](const auto& r) { return r.node.has_value(); }),
                    s.per_node);
        }
      }
    }
  }
}

}  // namespace
}  // namespace tightpack::advice
