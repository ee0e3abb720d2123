#include "tightpack/pools/forecast.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_util.hpp"
#include "tightpack/labels.hpp"
#include "tightpack/plugins/inter_pod_affinity.hpp"

namespace tightpack::pools {
namespace {

namespace json = boost::json;

// Objects as `kubectl get … -o json` prints them, so that the snapshot
// decoder reads them the way it reads a user's cluster.
json::object node(const std::string& name, const std::string& pool, const std::string& cpu = "4",
                  const std::string& memory = "16Gi") {
  json::object labels{{"kubernetes.io/hostname", name}};
  if (!pool.empty()) labels["cloud.google.com/gke-nodepool"] = pool;
  json::object res{{"cpu", cpu}, {"memory", memory}, {"pods", "110"}};
  return json::object{
      {"kind", "Node"},
      {"metadata", json::object{{"name", name}, {"labels", labels}}},
      {"spec", json::object{}},
      {"status", json::object{{"capacity", res},
                              {"allocatable", res},
                              {"conditions",
                               json::array{json::object{{"type", "Ready"}, {"status", "True"}}}}}}};
}

json::object pod(const std::string& ns, const std::string& name, const std::string& on,
                 const std::string& cpu, const std::string& memory = "256Mi") {
  json::object requests{{"cpu", cpu}, {"memory", memory}};
  json::object container{{"name", "main"},
                         {"image", "busybox:1.36"},
                         {"resources", json::object{{"requests", requests}}}};
  return json::object{
      {"kind", "Pod"},
      {"metadata", json::object{{"name", name}, {"namespace", ns}}},
      {"spec", json::object{{"nodeName", on}, {"containers", json::array{container}}}},
      {"status", json::object{{"phase", "Running"}}}};
}

json::object& metadata(json::object& o) {
  return o["metadata"].as_object();
}

json::object owned_by(json::object p, const std::string& kind, const std::string& name) {
  metadata(p)["ownerReferences"] = json::array{
      json::object{{"apiVersion", "v1"}, {"kind", kind}, {"name", name}, {"controller", true}}};
  return p;
}

// The common case: a pod of a ReplicaSet, which cluster-autoscaler may move.
json::object replicated(json::object p) {
  return owned_by(std::move(p), "ReplicaSet", "rs");
}

json::object annotated(json::object o, const std::string& key, const std::string& value) {
  json::object& m = metadata(o);
  if (!m.contains("annotations")) m["annotations"] = json::object{};
  m["annotations"].as_object()[key] = value;
  return o;
}

json::object labelled(json::object o, const std::string& key, const std::string& value) {
  json::object& m = metadata(o);
  if (!m.contains("labels")) m["labels"] = json::object{};
  m["labels"].as_object()[key] = value;
  return o;
}

json::object with_gpus(json::object o, const std::string& count) {
  if (o["kind"] == "Node") {
    json::object& st = o["status"].as_object();
    st["capacity"].as_object()["nvidia.com/gpu"] = count;
    st["allocatable"].as_object()["nvidia.com/gpu"] = count;
  } else {
    json::object& c = o["spec"].as_object()["containers"].as_array()[0].as_object();
    json::object& r = c["resources"].as_object();
    r["requests"].as_object()["nvidia.com/gpu"] = count;
    r["limits"] = json::object{{"nvidia.com/gpu", count}};
  }
  return o;
}

json::object with_volume(json::object p, json::object volume) {
  p["spec"].as_object()["volumes"] = json::array{std::move(volume)};
  return p;
}

json::object pdb(const std::string& ns, const std::string& app, int64_t allowed) {
  return json::object{
      {"kind", "PodDisruptionBudget"},
      {"metadata", json::object{{"name", app + "-pdb"}, {"namespace", ns}}},
      {"spec",
       json::object{{"selector", json::object{{"matchLabels", json::object{{"app", app}}}}}}},
      {"status", json::object{{"disruptionsAllowed", allowed}}}};
}

ClusterSnapshot snapshot_of(const std::vector<json::object>& items) {
  json::array a;
  for (const auto& o : items) a.push_back(o);
  json::value list = json::object{{"kind", "List"}, {"items", std::move(a)}};
  auto s = decode_cluster_snapshot(list, JsonPath());
  if (!s) {
    ADD_FAILURE() << s.error().what();
    return {};
  }
  return std::move(*s);
}

ScaleDownForecast forecast(const std::vector<json::object>& items, const PoolsConfig& config,
                           const PodRemoval& removal, std::optional<int64_t> now = std::nullopt) {
  ClusterSnapshot s = snapshot_of(items);
  std::vector<Node> nodes;
  for (const auto& n : s.nodes) nodes.push_back(n.node);
  auto f = forecast_scale_down(s, resolve_pools(config, nodes), config, removal, now);
  if (!f) {
    ADD_FAILURE() << f.error().what();
    return {};
  }
  return std::move(*f);
}

ScaleDownForecast forecast(const std::vector<json::object>& items, const PoolsConfig& config = {},
                           const char* remove = nullptr,
                           std::optional<int64_t> now = std::nullopt) {
  PodRemoval removal;
  if (remove) {
    auto parsed = parse_label_selector(remove);
    if (!parsed) ADD_FAILURE() << parsed.error().what();
    removal.selector = parsed ? *parsed : LabelSelector{};
  }
  return forecast(items, config, removal, now);
}

const NodeForecast& at(const ScaleDownForecast& f, const std::string& name) {
  for (const NodeForecast& n : f.nodes) {
    if (n.node == name) return n;
  }
  static const NodeForecast none;
  ADD_FAILURE() << "no node " << name;
  return none;
}

PoolsConfig config_of(std::string_view text) {
  auto doc = testing::json_of(text);
  auto c = decode_pools_config(doc, JsonPath());
  if (!c) {
    ADD_FAILURE() << c.error().what();
    return {};
  }
  return std::move(*c);
}

// ---------------------------------------------------------------- utilization

TEST(Forecast, NodeAtOrAboveTheThresholdIsNotUnderutilized) {
  auto f = forecast({node("busy", "workers"), node("idle", "workers"),
                     replicated(pod("ns", "big", "busy", "2880m")),
                     replicated(pod("ns", "small", "idle", "400m"))});
  const NodeForecast& busy = at(f, "busy");
  EXPECT_FALSE(busy.removable);
  EXPECT_EQ(busy.reason, "NotUnderutilized");
  EXPECT_EQ(busy.utilization.resource, "cpu");
  EXPECT_DOUBLE_EQ(busy.utilization.value, 0.72);
  EXPECT_EQ(busy.message, "cpu 72% ≥ threshold 50%");
  const NodeForecast& idle = at(f, "idle");
  EXPECT_TRUE(idle.removable) << idle.message;
  EXPECT_EQ(idle.pods_to_move, 1u);
  EXPECT_EQ(idle.message, "its 1 pod fit on other nodes: removable after 10m unneeded");
  EXPECT_EQ(f.removable, 1);
}

TEST(Forecast, ThresholdAndUnneededTimeComeFromTheConfiguration) {
  PoolsConfig config = config_of(R"({"apiVersion": "tightpack.io/v1alpha1", "kind": "NodePools",
      "autoscaler": {"scaleDownUtilizationThreshold": 0.8, "scaleDownUnneededTime": "15m"}})");
  // b is in no pool: a destination, never a candidate (an empty candidate
  // would go first and, removed, be no destination for a's pod).
  auto f = forecast({node("a", "workers"), node("b", ""), replicated(pod("ns", "p", "a", "2880m"))},
                    config);
  const NodeForecast& a = at(f, "a");
  EXPECT_TRUE(a.removable) << a.message;  // 72% is under 80%, and b has room
  EXPECT_DOUBLE_EQ(a.threshold, 0.8);
  EXPECT_EQ(f.unneeded_seconds, 900);
  EXPECT_EQ(a.message, "its 1 pod fit on other nodes: removable after 15m unneeded");
}

TEST(Forecast, MemoryDecidesWhenItIsTheHigherFraction) {
  auto f = forecast({node("a", "workers", "4", "10Gi"), node("b", "workers"),
                     replicated(pod("ns", "p", "a", "100m", "6Gi"))});
  EXPECT_EQ(at(f, "a").utilization.resource, "memory");
  EXPECT_EQ(at(f, "a").message, "memory 60% ≥ threshold 50%");
}

TEST(Forecast, GpuNodesAreJudgedByGpuUtilizationAlone) {
  // A GPU node busy on cpu but with its GPU idle is a candidate; one whose
  // GPU is in use is not, however idle its cpu.
  auto f = forecast({with_gpus(node("gpu-idle", "gpu"), "1"),
                     with_gpus(node("gpu-busy", "gpu"), "1"), node("cpu", "workers", "8"),
                     replicated(pod("ns", "cpu-heavy", "gpu-idle", "3500m")),
                     replicated(with_gpus(pod("ns", "train", "gpu-busy", "100m"), "1"))});
  const NodeForecast& idle = at(f, "gpu-idle");
  EXPECT_TRUE(idle.utilization.gpu_node);
  EXPECT_EQ(idle.utilization.resource, "nvidia.com/gpu");
  EXPECT_EQ(idle.utilization.value, 0);
  EXPECT_TRUE(idle.removable) << idle.reason << ": " << idle.message;
  const NodeForecast& busy = at(f, "gpu-busy");
  EXPECT_EQ(busy.reason, "NotUnderutilized");
  EXPECT_EQ(busy.message, "nvidia.com/gpu 100% ≥ GPU threshold 50%");
}

TEST(Forecast, GpuThresholdIsItsOwnSetting) {
  PoolsConfig config = config_of(R"({"apiVersion": "tightpack.io/v1alpha1", "kind": "NodePools",
      "autoscaler": {"scaleDownGpuUtilizationThreshold": 0.3}})");
  auto f = forecast({with_gpus(node("g", "gpu"), "4"), with_gpus(node("h", "gpu"), "4"),
                     replicated(with_gpus(pod("ns", "train", "g", "100m"), "1")),
                     replicated(with_gpus(pod("ns", "infer", "h", "100m"), "2"))},
                    config);
  EXPECT_TRUE(at(f, "g").removable) << at(f, "g").message;  // 25% < 30%, and h has 2 GPUs free
  EXPECT_DOUBLE_EQ(at(f, "g").threshold, 0.3);
  EXPECT_EQ(at(f, "h").message, "nvidia.com/gpu 50% ≥ GPU threshold 30%");
}

// ---------------------------------------------------------------- moving pods

TEST(Forecast, PodsThatFitElsewhereMakeTheNodeRemovableAndThoseThatDoNotBlockIt) {
  auto f = forecast({node("a", "workers"), node("b", "workers"), node("full", "workers"),
                     replicated(pod("ns", "small", "a", "1")),
                     replicated(pod("ns", "big", "b", "1900m")),
                     replicated(pod("ns", "filler", "full", "3"))});
  // a's 1 cpu fits on b (2.1 free). Then b: a is gone, and of its two pods
  // full takes the 1 cpu one only.
  EXPECT_TRUE(at(f, "a").removable);
  EXPECT_EQ(at(f, "b").reason, "NoPlaceToMovePods");
  // Without b, the 1.9 cpu pod has nowhere to go: full has 1 cpu free.
  auto g = forecast({node("a", "workers"), node("full", "workers"),
                     replicated(pod("ns", "wide", "a", "1900m")),
                     replicated(pod("ns", "filler", "full", "3"))});
  const NodeForecast& a = at(g, "a");
  EXPECT_FALSE(a.removable);
  EXPECT_EQ(a.reason, "NoPlaceToMovePods");
  EXPECT_EQ(a.blocking_pod, "ns/wide");
  EXPECT_EQ(a.message, "pod ns/wide fits on no other node");
}

TEST(Forecast, MovedPodsMustPassTheSchedulerFiltersOnTheirNewNode) {
  // The only node with room is tainted and the pod does not tolerate it.
  json::object tainted = node("tainted", "workers");
  tainted["spec"].as_object()["taints"] =
      json::array{json::object{{"key", "dask"}, {"value", "worker"}, {"effect", "NoSchedule"}}};
  auto f = forecast({node("a", "workers"), tainted, replicated(pod("ns", "p", "a", "1"))});
  EXPECT_EQ(at(f, "a").reason, "NoPlaceToMovePods");
}

TEST(Forecast, CandidatesAreJudgedOneAfterAnotherAsClusterAutoscalerDoes) {
  // a and b each fit on the other, but not both on c. Since
  // kubernetes/autoscaler#5976 the planner judges candidates one after
  // another: a is removable (its pod to b), and then b's two pods need a
  // home without a (CA 1.26 judged each on its own and found both).
  auto f = forecast({node("a", "workers"), node("b", "workers"), node("c", "workers"),
                     replicated(pod("ns", "pa", "a", "1500m")),
                     replicated(pod("ns", "pb", "b", "1500m")),
                     replicated(pod("ns", "pc", "c", "2400m"))});
  EXPECT_TRUE(at(f, "a").removable);
  EXPECT_EQ(at(f, "b").reason, "NoPlaceToMovePods");
  EXPECT_EQ(at(f, "c").reason, "NotUnderutilized");
  EXPECT_EQ(f.removable, 1);
}

TEST(Forecast, PodsMovedForOneCandidateStayForTheNext) {
  // a's pod moves to b in a's simulation and stays there; x's pod can only go
  // to b, which has no room left for it (CA 1.26 took a's pod off again).
  json::object px = replicated(pod("ns", "px", "x", "1800m"));
  px["spec"].as_object()["nodeSelector"] = json::object{{"target", "yes"}};
  auto f = forecast({node("a", "workers"), labelled(node("b", "workers"), "target", "yes"),
                     node("x", "workers"), replicated(pod("ns", "pa", "a", "1500m")),
                     replicated(pod("ns", "pb", "b", "2100m")), px});
  EXPECT_TRUE(at(f, "a").removable) << at(f, "a").message;
  EXPECT_EQ(at(f, "b").reason, "NotUnderutilized");
  EXPECT_EQ(at(f, "x").reason, "NoPlaceToMovePods");
}

TEST(Forecast, EmptyNodesHoldOnlyDaemonSetPods) {
  auto f = forecast(
      {node("a", "workers"), node("b", "workers"),
       owned_by(pod("kube-system", "fluentbit-a", "a", "100m"), "DaemonSet", "fluentbit")});
  EXPECT_TRUE(at(f, "a").empty);
  EXPECT_EQ(at(f, "a").pods_to_move, 0u);
  EXPECT_EQ(at(f, "a").message,
            "empty (DaemonSet and mirror pods only): removable after 10m unneeded");
}

// ---------------------------------------------------------------- eligibility

TEST(Forecast, PoolAtMinSizeKeepsItsNodes) {
  PoolsConfig config = config_of(R"({"apiVersion": "tightpack.io/v1alpha1", "kind": "NodePools",
      "pools": [{"name": "core", "minSize": 2, "maxSize": 4}]})");
  auto f = forecast({node("core-1", "core"), node("core-2", "core"), node("w", "workers")}, config);
  EXPECT_EQ(at(f, "core-1").reason, "NodeGroupMinSizeReached");
  EXPECT_EQ(at(f, "core-1").message, "pool core at min size 2");
  EXPECT_FALSE(at(f, "core-1").pool_inferred);
  EXPECT_TRUE(at(f, "w").removable);
  ASSERT_EQ(f.pools.size(), 2u);
  EXPECT_EQ(f.pools[0].name, "core");
  EXPECT_EQ(f.pools[0].min_size, 2);
  EXPECT_FALSE(f.pools[0].inferred);
  EXPECT_EQ(f.pools[1].name, "workers");
  EXPECT_TRUE(f.pools[1].inferred);
  EXPECT_EQ(f.pools[1].removable, 1);
}

TEST(Forecast, InferredPoolsAreMarkedAndTheirMinSizeTakenAsZero) {
  auto f = forecast({node("w-1", "workers"), node("w-2", "workers")});
  EXPECT_TRUE(at(f, "w-1").pool_inferred);
  EXPECT_EQ(at(f, "w-1").pool, "workers");
  EXPECT_EQ(f.removable, 2);
  ASSERT_FALSE(f.notes.empty());
  EXPECT_NE(f.notes[0].find("pools inferred from node labels: workers (2 nodes)"),
            std::string::npos)
      << f.notes[0];
}

TEST(Forecast, NodeInNoPoolIsNotAutoscaled) {
  auto f = forecast({node("pet", ""), node("w", "workers")});
  EXPECT_EQ(at(f, "pet").reason, "NotAutoscaled");
  EXPECT_EQ(at(f, "pet").pool, "");
  EXPECT_EQ(at(f, "pet").message,
            "node in no pool: no configured pool claims it and it carries no pool label");
  EXPECT_EQ(f.not_autoscaled, 1);
}

TEST(Forecast, ScaleDownDisabledAnnotationKeepsTheNode) {
  auto f = forecast({annotated(node("a", "workers"),
                               "cluster-autoscaler.kubernetes.io/scale-down-disabled", "true"),
                     node("b", "workers")});
  EXPECT_EQ(at(f, "a").reason, "ScaleDownDisabledAnnotation");
  EXPECT_TRUE(at(f, "b").removable);
}

// ---------------------------------------------------------------- blocking pods

TEST(Forecast, PodWithoutControllerBlocks) {
  auto f =
      forecast({node("a", "users"), node("b", "users"), pod("jhub", "jupyter-alice", "a", "1")});
  const NodeForecast& a = at(f, "a");
  EXPECT_EQ(a.reason, "BlockedByPod/NotReplicated");
  EXPECT_EQ(a.blocking_pod, "jhub/jupyter-alice");
  EXPECT_EQ(a.message, "pod jhub/jupyter-alice has no controller: nothing would recreate it");
  EXPECT_NE(blocker_fix(a.reason).find("safe-to-evict: \"true\""), std::string::npos);
}

json::object dask_worker(const std::string& user, int i, const std::string& on) {
  return labelled(
      owned_by(pod("daskhub", user + "-default-worker-" + std::to_string(i), on, "1", "2Gi"),
               "DaskWorkerGroup", user + "-default"),
      "dask.org/cluster-name", user);
}

TEST(Forecast, DaskOperatorWorkersBlockByDefaultAsCustomControllerPods) {
  auto f = forecast({node("w-1", "dask-workers", "8"), node("w-2", "dask-workers", "8"),
                     dask_worker("alice", 0, "w-1")});
  const NodeForecast& w = at(f, "w-1");
  EXPECT_EQ(w.reason, "BlockedByPod/NotReplicated");
  EXPECT_EQ(
      w.message,
      "pod daskhub/alice-default-worker-0 is owned by DaskWorkerGroup alice-default, a custom "
      "controller (--skip-nodes-with-custom-controller-pods)");
}

TEST(Forecast, DaskOperatorWorkersMoveWhenCustomControllersAreNotSkipped) {
  PoolsConfig config = config_of(R"({"apiVersion": "tightpack.io/v1alpha1", "kind": "NodePools",
      "autoscaler": {"skipNodesWithCustomControllerPods": false}})");
  auto f = forecast(
      {node("w-1", "dask-workers", "8"), node("w-2", "", "8"), dask_worker("alice", 0, "w-1")},
      config);
  EXPECT_TRUE(at(f, "w-1").removable) << at(f, "w-1").message;
}

TEST(Forecast, SafeToEvictTrueLetsAnyPodMove) {
  auto f = forecast({node("a", "users"), node("b", ""),
                     annotated(pod("jhub", "jupyter-bob", "a", "1"),
                               "cluster-autoscaler.kubernetes.io/safe-to-evict", "true")});
  EXPECT_TRUE(at(f, "a").removable);
}

TEST(Forecast, SafeToEvictFalseBlocks) {
  auto f = forecast({node("a", "workers"), node("b", "workers"),
                     annotated(owned_by(pod("etl", "job-x", "a", "1"), "Job", "job"),
                               "cluster-autoscaler.kubernetes.io/safe-to-evict", "false")});
  EXPECT_EQ(at(f, "a").reason, "BlockedByPod/NotSafeToEvictAnnotation");
  EXPECT_EQ(at(f, "a").message,
            "pod etl/job-x is annotated cluster-autoscaler.kubernetes.io/safe-to-evict: \"false\"");
}

TEST(Forecast, LocalStorageBlocksUnlessInMemoryOrAllowed) {
  auto f = forecast(
      {node("a", "workers"), node("b", "workers"), node("c", "workers"), node("d", "workers"),
       replicated(with_volume(pod("ns", "scratch", "a", "1"),
                              json::object{{"name", "tmp"}, {"emptyDir", json::object{}}})),
       replicated(with_volume(
           pod("ns", "shm", "b", "1"),
           json::object{{"name", "shm"}, {"emptyDir", json::object{{"medium", "Memory"}}}})),
       annotated(
           replicated(with_volume(pod("ns", "allowed", "c", "1"),
                                  json::object{{"name", "tmp"}, {"emptyDir", json::object{}}})),
           "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes", "tmp")});
  EXPECT_EQ(at(f, "a").reason, "BlockedByPod/LocalStorageRequested");
  EXPECT_EQ(at(f, "a").message,
            "pod ns/scratch uses local storage (emptyDir or hostPath volume \"tmp\")");
  EXPECT_TRUE(at(f, "b").removable) << at(f, "b").message;
  EXPECT_TRUE(at(f, "c").removable) << at(f, "c").message;
}

TEST(Forecast, KubeSystemPodWithoutDisruptionBudgetBlocks) {
  json::object dns =
      labelled(replicated(pod("kube-system", "kube-dns-1", "a", "200m")), "app", "dns");
  auto without = forecast({node("a", "core"), node("b", "core"), dns});
  EXPECT_EQ(at(without, "a").reason, "BlockedByPod/UnmovableKubeSystemPod");
  EXPECT_EQ(at(without, "a").message,
            "kube-system pod kube-system/kube-dns-1 without a PodDisruptionBudget");
  auto with = forecast({node("a", "core"), node("b", ""), dns, pdb("kube-system", "dns", 1)});
  EXPECT_TRUE(at(with, "a").removable) << at(with, "a").message;
}

// cluster-autoscaler#7914: a kube-system pod without a budget blocks only
// during its first hour; without a time to judge at, its age is unknown.
TEST(Forecast, KubeSystemPodOlderThanAnHourDoesNotBlock) {
  json::object dns =
      labelled(replicated(pod("kube-system", "kube-dns-1", "a", "200m")), "app", "dns");
  metadata(dns)["creationTimestamp"] = "2026-11-30T10:00:00Z";
  // b is in no pool, so it stays as the place the pod moves to.
  const std::vector<json::object> cluster = {node("a", "core"), node("b", ""), dns};
  const int64_t created = 1796032800;  // 2026-11-30T10:00:00Z
  EXPECT_EQ(at(forecast(cluster), "a").reason, "BlockedByPod/UnmovableKubeSystemPod");
  EXPECT_EQ(at(forecast(cluster, {}, nullptr, created + 59 * 60), "a").reason,
            "BlockedByPod/UnmovableKubeSystemPod");
  auto later = forecast(cluster, {}, nullptr, created + 61 * 60);
  EXPECT_TRUE(at(later, "a").removable) << at(later, "a").message;
}

TEST(Forecast, DisruptionBudgetWithNoDisruptionLeftBlocks) {
  json::object web = labelled(replicated(pod("web", "web-1", "a", "200m")), "app", "web");
  auto f = forecast({node("a", "core"), node("b", "core"), web, pdb("web", "web", 0)});
  EXPECT_EQ(at(f, "a").reason, "BlockedByPod/NotEnoughPdb");
  EXPECT_EQ(at(f, "a").message, "pod web/web-1: its PodDisruptionBudget allows no disruption now");
}

TEST(Forecast, ControllerMissingFromASnapshotThatListsItsKindBlocks) {
  json::object rs{{"kind", "ReplicaSet"},
                  {"metadata", json::object{{"name", "other"}, {"namespace", "ns"}}}};
  auto f = forecast(
      {node("a", "workers"), node("b", "workers"), replicated(pod("ns", "p", "a", "1")), rs});
  EXPECT_EQ(at(f, "a").reason, "BlockedByPod/ControllerNotFound");
  EXPECT_EQ(at(f, "a").message, "pod ns/p: its controller ReplicaSet rs is not in the snapshot");
  // Without any ReplicaSet listed, the controller is taken to exist.
  auto g = forecast({node("a", "workers"), node("b", ""), replicated(pod("ns", "p", "a", "1"))});
  EXPECT_TRUE(at(g, "a").removable);
  bool noted = false;
  for (const auto& n : g.notes)
    noted = noted || n.find("lists no controllers") != std::string::npos;
  EXPECT_TRUE(noted);
}

// ---------------------------------------------------------------- --remove

TEST(Forecast, RemovingAUsersWorkersMakesTheirNodeRemovable) {
  std::vector<json::object> cluster{
      node("w-1", "dask-workers", "8"),
      node("w-2", "dask-workers", "8"),
      owned_by(pod("kube-system", "fluentbit-1", "w-1", "100m"), "DaemonSet", "fluentbit"),
      dask_worker("alice", 0, "w-1"),
      dask_worker("alice", 1, "w-1"),
      dask_worker("bob", 0, "w-2")};
  auto before = forecast(cluster);
  EXPECT_EQ(at(before, "w-1").reason, "BlockedByPod/NotReplicated");
  auto after = forecast(cluster, {}, "dask.org/cluster-name=alice");
  EXPECT_TRUE(at(after, "w-1").removable);
  EXPECT_TRUE(at(after, "w-1").empty);
  EXPECT_EQ(at(after, "w-2").reason, "BlockedByPod/NotReplicated");  // bob's worker stays
  EXPECT_EQ(after.removed_pods, (std::vector<std::string>{"daskhub/alice-default-worker-0",
                                                          "daskhub/alice-default-worker-1"}));
}

TEST(Forecast, SelectorThatMatchesNothingIsNoted) {
  auto f = forecast({node("w", "workers")}, {}, "dask.org/cluster-name=nobody");
  EXPECT_TRUE(f.removed_pods.empty());
  bool noted = false;
  for (const auto& n : f.notes)
    noted = noted || n.find("no running pod matches") != std::string::npos;
  EXPECT_TRUE(noted);
}

// A dask-kubernetes operator worker: a one-replica Deployment named after
// the worker, whose ReplicaSet `<deployment>-<hash>` makes the pod
// `<deployment>-<hash>-<suffix>` labelled pod-template-hash=<hash>, as the
// Deployment controller names them.
json::object operator_worker(const std::string& deployment, const std::string& on,
                             const std::string& hash = "7c9f8d6b5d") {
  json::object p = pod("daskhub", deployment + "-" + hash + "-x2k4q", on, "1");
  p = labelled(std::move(p), "pod-template-hash", hash);
  return owned_by(std::move(p), "ReplicaSet", deployment + "-" + hash);
}

bool has_note(const ScaleDownForecast& f, const std::string& text) {
  return std::any_of(f.notes.begin(), f.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

TEST(Forecast, RemovingDeploymentsTakesTheirPods) {
  std::vector<json::object> cluster{node("w-1", "dask-workers", "8"),
                                    node("w-2", "dask-workers", "8"),
                                    operator_worker("alice-default-worker-3f2a", "w-1"),
                                    operator_worker("alice-default-worker-9b1c", "w-2"),
                                    // Another Deployment whose name begins with the first's.
                                    operator_worker("alice-default-worker-3f2a-x", "w-2", "55d")};
  PodRemoval removal;
  removal.deployments = {"daskhub/alice-default-worker-3f2a"};
  auto f = forecast(cluster, {}, removal);
  EXPECT_EQ(f.removed_pods,
            (std::vector<std::string>{"daskhub/alice-default-worker-3f2a-7c9f8d6b5d-x2k4q"}));
  EXPECT_TRUE(at(f, "w-1").removable);
  EXPECT_TRUE(at(f, "w-1").empty);
  EXPECT_FALSE(has_note(f, "nothing was removed"));
}

TEST(Forecast, ADeploymentIsKnownOnlyByItsReplicaSetsHash) {
  const PodRemoval removal{std::nullopt, {}, {"daskhub/web"}};
  // A ReplicaSet of that name with no pod-template-hash label (made by hand,
  // not by a Deployment), a pod of another namespace, and one of a
  // StatefulSet are not the Deployment's.
  std::vector<json::object> cluster{
      node("w-1", "workers", "8"),
      owned_by(pod("daskhub", "web-abc-1", "w-1", "1"), "ReplicaSet", "web-abc"),
      owned_by(labelled(pod("other", "web-abc-2", "w-1", "1"), "pod-template-hash", "abc"),
               "ReplicaSet", "web-abc"),
      owned_by(labelled(pod("daskhub", "web-0", "w-1", "1"), "pod-template-hash", "abc"),
               "StatefulSet", "web-abc")};
  auto f = forecast(cluster, {}, removal);
  EXPECT_TRUE(f.removed_pods.empty());
  EXPECT_TRUE(has_note(f, "Deployment \"daskhub/web\" has no running pod in the snapshot"));
}

TEST(Forecast, RemovingPodsByNameAndNotingTheMissingOnes) {
  std::vector<json::object> cluster{node("w-1", "workers", "8"), dask_worker("alice", 0, "w-1"),
                                    dask_worker("alice", 1, "w-1")};
  PodRemoval removal;
  removal.pods = {"daskhub/alice-default-worker-1", "daskhub/gone", "daskhub/gone-too"};
  auto f = forecast(cluster, {}, removal);
  EXPECT_EQ(f.removed_pods, (std::vector<std::string>{"daskhub/alice-default-worker-1"}));
  EXPECT_EQ(at(f, "w-1").reason, "BlockedByPod/NotReplicated");  // worker 0 stays
  EXPECT_TRUE(has_note(f, "pods \"daskhub/gone\", \"daskhub/gone-too\" are not running"));
}

TEST(Forecast, ObjectKeysAreNamespaceSlashName) {
  EXPECT_FALSE(object_key_error("ns/name", "pod"));
  for (const char* bad : {"name", "/name", "ns/", "a/b/c", ""}) {
    auto e = object_key_error(bad, "Deployment");
    ASSERT_TRUE(e) << bad;
    EXPECT_NE(e->find("is not a Deployment reference"), std::string::npos) << *e;
  }
  // A long value is cut in the message, as every quoted value is.
  auto e = object_key_error(std::string(300, 'x'), "pod");
  ASSERT_TRUE(e);
  EXPECT_LT(e->size(), 150u) << *e;
}

TEST(Forecast, PendingPodsAreLeftOutAndNoted) {
  json::object pending = replicated(pod("ns", "waiting", "", "1"));
  pending["spec"].as_object().erase("nodeName");
  pending["status"].as_object()["phase"] = "Pending";
  auto f = forecast({node("a", "workers"), node("b", "workers"), pending});
  EXPECT_EQ(f.removable, 2);
  bool noted = false;
  for (const auto& n : f.notes) noted = noted || n.rfind("1 pod pending, left out", 0) == 0;
  EXPECT_TRUE(noted);
}

// ---------------------------------------------------------------- output

TEST(Forecast, JsonCarriesEveryVerdict) {
  auto f = forecast(
      {node("busy", "workers"), node("pet", ""), replicated(pod("ns", "big", "busy", "3"))});
  json::value v = forecast_json(f);
  const json::object& o = v.as_object();
  EXPECT_EQ(o.at("summary").at("nodes").as_int64(), 2);
  EXPECT_EQ(o.at("summary").at("removable").as_int64(), 0);
  EXPECT_EQ(o.at("summary").at("notAutoscaled").as_int64(), 1);
  EXPECT_EQ(o.at("unneededTime").as_string(), "10m");
  const json::object& busy = o.at("nodes").as_array()[0].as_object();
  EXPECT_EQ(busy.at("reason").as_string(), "NotUnderutilized");
  EXPECT_EQ(busy.at("utilization").at("resource").as_string(), "cpu");
  EXPECT_EQ(busy.at("utilization").at("value").as_double(), 0.75);
  EXPECT_EQ(busy.at("message").as_string(), "cpu 75% ≥ threshold 50%");
  EXPECT_TRUE(busy.contains("fix"));
  const json::object& pet = o.at("nodes").as_array()[1].as_object();
  EXPECT_TRUE(pet.at("pool").is_null());
  EXPECT_EQ(o.at("pools").as_array()[0].at("source").as_string(), "inferred");
}

TEST(Forecast, PercentsRoundDownSoThatBelowNeverPrintsAsTheThreshold) {
  EXPECT_EQ(format_percent(0.72), "72%");
  EXPECT_EQ(format_percent(0.58), "58%");
  EXPECT_EQ(format_percent(0.4999), "49.9%");
  EXPECT_EQ(format_percent(0.5), "50%");
  EXPECT_EQ(format_percent(1), "100%");
  EXPECT_EQ(format_percent(0), "0%");
}

TEST(Forecast, DurationsAsTheConfigurationSpellsThem) {
  EXPECT_EQ(format_duration(600), "10m");
  EXPECT_EQ(format_duration(5400), "1h30m");
  EXPECT_EQ(format_duration(90), "1m30s");
  EXPECT_EQ(format_duration(0), "0s");
}

// ---------------------------------------------------------------- selectors

bool selects(std::string_view selector,
             std::initializer_list<std::pair<const char*, const char*>> l) {
  auto s = parse_label_selector(selector);
  if (!s) {
    ADD_FAILURE() << s.error().what();
    return false;
  }
  return label_selector_matches(*s, testing::labels(l));
}

TEST(LabelSelectorParse, EqualityAndInequality) {
  EXPECT_TRUE(selects("dask.org/cluster-name=alice", {{"dask.org/cluster-name", "alice"}}));
  EXPECT_FALSE(selects("dask.org/cluster-name=alice", {{"dask.org/cluster-name", "bob"}}));
  EXPECT_TRUE(selects("app==web", {{"app", "web"}}));
  EXPECT_TRUE(selects("app!=web", {{"app", "db"}}));
  EXPECT_TRUE(selects("app!=web", {}));  // as kubectl: no label is "not web"
  EXPECT_FALSE(selects("app!=web", {{"app", "web"}}));
  EXPECT_TRUE(selects("app=", {{"app", ""}}));
}

TEST(LabelSelectorParse, SetsExistenceAndConjunction) {
  EXPECT_TRUE(selects("env in (prod, staging)", {{"env", "staging"}}));
  EXPECT_FALSE(selects("env in (prod,staging)", {{"env", "dev"}}));
  EXPECT_TRUE(selects("env notin (prod)", {{"env", "dev"}}));
  EXPECT_TRUE(selects("env notin (prod)", {}));
  EXPECT_TRUE(selects("gpu", {{"gpu", "t4"}}));
  EXPECT_FALSE(selects("gpu", {}));
  EXPECT_TRUE(selects("!gpu", {}));
  EXPECT_FALSE(selects("!gpu", {{"gpu", "t4"}}));
  EXPECT_TRUE(selects(" app = web , !canary,tier in (a)", {{"app", "web"}, {"tier", "a"}}));
  EXPECT_FALSE(selects("app=web,!canary", {{"app", "web"}, {"canary", "1"}}));
  EXPECT_TRUE(selects("", {{"anything", "x"}}));  // the empty selector selects every pod
  // `in` and `notin` are values inside a set, as kubectl reads them.
  EXPECT_TRUE(selects("mode in (in, out)", {{"mode", "in"}}));
  auto s = parse_label_selector("k in (a,,a)");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->match_expressions[0].values, (std::vector<std::string>{"a", ""}));
}

std::string parse_error(std::string_view selector) {
  auto s = parse_label_selector(selector);
  if (s) {
    ADD_FAILURE() << "parsed: " << selector;
    return "";
  }
  return s.error().what();
}

TEST(LabelSelectorParse, ErrorsQuoteTheSelectorAndThePosition) {
  EXPECT_EQ(parse_error("app in (a"),
            "invalid selector \"app in (a\" at position 10: expected ',' or ')', found the end of "
            "the selector");
  EXPECT_EQ(parse_error("=web"),
            "invalid selector \"=web\" at position 1: expected a label key or '!', found \"=\"");
  EXPECT_EQ(parse_error("app=web,"),
            "invalid selector \"app=web,\" at position 9: expected a label key or '!' after ',', "
            "found the end of the selector");
  EXPECT_EQ(parse_error("app web"),
            "invalid selector \"app web\" at position 5: expected '=', '==', '!=', 'in' or "
            "'notin', found \"web\"");
  EXPECT_EQ(parse_error("!app=web"),
            "invalid selector \"!app=web\" at position 5: expected ',' or the end of the "
            "selector, found \"=\"");
  EXPECT_EQ(parse_error("app in a"),
            "invalid selector \"app in a\" at position 8: expected '(', found \"a\"");
  EXPECT_NE(parse_error("replicas>1").find("numeric comparisons"), std::string::npos);
}

TEST(LabelSelectorParse, KeysAndValuesAreCheckedAsTheApiServerChecksThem) {
  EXPECT_EQ(parse_error("Dask.org/x=1"),
            "invalid selector \"Dask.org/x=1\" at position 1: label key \"Dask.org/x\": the prefix "
            "before '/' must be a lowercase DNS subdomain such as dask.org");
  EXPECT_NE(parse_error("a/b/c=1").find("at most one '/'"), std::string::npos);
  EXPECT_NE(parse_error("-app=1").find("begin and end with a letter or digit"), std::string::npos);
  EXPECT_NE(parse_error("app=a b").find("position 7"), std::string::npos);
  EXPECT_NE(parse_error("app=bad$value").find("label value \"bad$value\": may contain only"),
            std::string::npos);
  EXPECT_NE(parse_error(std::string(64, 'a') + "=1").find("no more than 63"), std::string::npos);
  EXPECT_TRUE(
      parse_label_selector("example.com/" + std::string(63, 'a') + "=" + std::string(63, 'b'))
          .ok());
}

}  // namespace
}  // namespace tightpack::pools
