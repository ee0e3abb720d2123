#include "tightpack/what_if/what_if.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "tightpack/replay.hpp"
#include "tightpack/what_if/outlook.hpp"
#include "tightpack/what_if/spawn_question.hpp"

namespace tightpack {
namespace {
namespace json = boost::json;

std::string demo_cluster_text() {
  std::ifstream f(TIGHTPACK_SOURCE_DIR "/examples/daskhub-demo/cluster.json");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

constexpr const char* kWorker =
    R"({"pod": {"metadata": {"name": "dask-worker", "namespace": "daskhub"},
  "spec": {"tolerations": [{"key": "dask", "operator": "Equal", "value": "worker", "effect": "NoSchedule"}],
           "containers": [{"name": "worker", "resources": {"requests": {"cpu": "1", "memory": "4Gi"}}}]}},
  "replicas": REPLICAS, "profile": "PROFILE"})";

std::string worker_request(int replicas, const std::string& profile) {
  std::string s = kWorker;
  s.replace(s.find("REPLICAS"), 8, std::to_string(replicas));
  s.replace(s.find("PROFILE"), 7, profile);
  return s;
}

WhatIfCluster demo() {
  auto c = load_what_if_cluster(demo_cluster_text(), "", "");
  if (!c) ADD_FAILURE() << c.error().what();
  return std::move(*c);
}

TEST(WhatIf, PlacingLeavesTheClusterAsItWas) {
  WhatIfCluster c = demo();
  const std::string before = json::serialize(c.summary());
  const std::string first = place_text(c, worker_request(40, "most-allocated"));
  ASSERT_EQ(first.find("\"error\""), std::string::npos) << first;
  EXPECT_EQ(json::serialize(c.summary()), before);
  EXPECT_EQ(place_text(c, worker_request(40, "most-allocated")), first);
}

TEST(WhatIf, PlacementMatchesReplayingTheCopiesOneByOne) {
  // The same copies as a corpus scenario: each replay decision's chosen node
  // must be where the what-if answer put that copy.
  WhatIfCluster c = demo();
  auto answer = json::parse(place_text(c, worker_request(12, "default"))).as_object();
  json::object scenario;
  json::value cluster = json::parse(demo_cluster_text());
  json::array nodes, pods;
  for (const auto& item : cluster.at("items").as_array()) {
    (item.at("kind") == "Node" ? nodes : pods).push_back(item);
  }
  json::object pod = json::parse(worker_request(12, "default")).at("pod").as_object();
  pod["replicas"] = 12;
  scenario["scenario"] = json::object{
      {"profile", "default"}, {"nodes", nodes}, {"pods", pods}, {"incoming", json::array{pod}}};
  auto replay = json::parse(replay_text(json::serialize(scenario))).as_object();
  const auto& results = replay.at("results").as_array();
  const auto& placements = answer.at("placements").as_array();
  ASSERT_EQ(results.size(), placements.size());
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].at("chosen"), placements[i].at("node")) << "copy " << i;
  }
}

TEST(WhatIf, ExplainIsReplaysDecisionForThePod) {
  WhatIfCluster c = demo();
  std::string request = kWorker;
  request = request.substr(0, request.find(",\n  \"replicas\"")) + "}";
  auto explained = json::parse(explain_text(c, request)).as_object();
  ASSERT_FALSE(explained.contains("error")) << explained;
  EXPECT_EQ(explained.at("schedulerName"), "default-scheduler");
  const auto& result = explained.at("result").as_object();
  EXPECT_TRUE(result.contains("filter"));
  EXPECT_TRUE(result.contains("scores"));
  EXPECT_EQ(result.at("pod"), "daskhub/dask-worker");
}

TEST(WhatIf, WorkersBeyondTheClusterGetTheInferredPoolsScaleUp) {
  WhatIfCluster c = demo();
  auto answer = json::parse(place_text(c, worker_request(200, "tightpack"))).as_object();
  ASSERT_TRUE(answer.contains("unschedulable")) << answer;
  ASSERT_TRUE(answer.contains("scaleUp")) << answer;
  EXPECT_GT(answer.at("scaleUp").at("pools").as_array().size(), 0u);
}

// What cluster-autoscaler's scale-down does with the question's pod is its
// drain rules' answer on the pod as the real clients make it
// (data/client_pods.json): the operator's workers are ReplicaSet-owned, so
// evicted unless annotated; dask-gateway's name their scheduler pod as owner
// without controller: true, and KubeSpawner's notebooks have no owner, so
// both keep their node; a worker with an emptyDir keeps it too.
TEST(WhatIf, ScaleDownIsTheDrainRulesAnswerOnTheClientsPods) {
  WhatIfCluster c = demo();
  std::ifstream f(TIGHTPACK_SOURCE_DIR "/core/tests/data/client_pods.json");
  std::stringstream text;
  text << f.rdbuf();
  const json::value pods = json::parse(text.str());
  auto scale_down = [&](json::value pod) {
    json::object request{{"pod", std::move(pod)}, {"replicas", 1}};
    const json::object answer = json::parse(place_text(c, json::serialize(request))).as_object();
    EXPECT_TRUE(answer.contains("scaleDown")) << answer;
    return json::serialize(answer.at("scaleDown"));
  };
  auto named = [&](std::string_view prefix) {
    for (const auto& p : pods.at("items").as_array()) {
      if (p.at("metadata").at("name").as_string().starts_with(prefix)) return p;
    }
    ADD_FAILURE() << prefix;
    return json::value();
  };
  constexpr const char* kKept = R"({"evicted":false,"blockedBy":"NotReplicated"})";
  json::value notebook = named("jupyter-alice");
  notebook.at("spec").as_object().erase("volumes");  // its home claim: the demo has no storage
  EXPECT_EQ(scale_down(notebook), kKept);
  EXPECT_EQ(scale_down(named("dask-worker-")), kKept);
  json::value worker = named("alice-cluster-default-worker-");
  EXPECT_EQ(scale_down(worker), R"({"evicted":false,"blockedBy":"NotSafeToEvictAnnotation"})");
  worker.at("metadata").as_object().erase("annotations");
  EXPECT_EQ(scale_down(worker), R"({"evicted":true,"blockedBy":null})");
  worker.at("spec").as_object()["volumes"] =
      json::parse(R"([{"name": "scratch", "emptyDir": {}}])");
  EXPECT_EQ(scale_down(worker), R"({"evicted":false,"blockedBy":"LocalStorageRequested"})");
  worker.at("metadata").as_object()["annotations"] =
      json::parse(R"({"cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes": "scratch"})");
  EXPECT_EQ(scale_down(worker), R"({"evicted":true,"blockedBy":null})");
}

// The copies that fit nowhere come with why, as data: the untolerated taints
// with their nodes and pools, the short resources with the most any node
// that passed the other filters has free, what no node offers.
TEST(WhatIf, UnschedulableCopiesComeWithTheirFactsAsData) {
  WhatIfCluster c = demo();
  std::string request = worker_request(1, "default");
  auto replace = [&](std::string_view from, std::string_view to) {
    request.replace(request.find(from), from.size(), to);
  };
  replace(R"([{"key": "dask", "operator": "Equal", "value": "worker", "effect": "NoSchedule"}])",
          "[]");
  replace(R"("memory": "4Gi")", R"("memory": "900Gi", "example.com/fpga": "1")");
  auto answer = json::parse(place_text(c, request)).as_object();
  ASSERT_TRUE(answer.contains("unschedulable")) << answer;
  const auto& facts = answer.at("unschedulable").at("facts").as_object();
  bool worker_taint = false;
  for (const auto& t : facts.at("untoleratedTaints").as_array()) {
    if (t.at("taint") == "k8s.dask.org/dedicated=worker:NoSchedule") {
      worker_taint = true;
      EXPECT_GT(t.at("nodes").as_int64(), 0);
      EXPECT_EQ(t.at("pools"), json::parse(R"(["dask-workers"])"));
    }
  }
  EXPECT_TRUE(worker_taint) << facts;
  const auto& short_of = facts.at("insufficient").as_array();
  ASSERT_FALSE(short_of.empty()) << facts;
  EXPECT_EQ(short_of[0].at("resource"), "memory") << facts;
  EXPECT_EQ(short_of[0].at("requested").as_int64(), 900LL << 30);
  EXPECT_LT(short_of[0].at("largestFree").as_int64(), 900LL << 30);
  EXPECT_EQ(facts.at("unoffered"), json::parse(R"(["example.com/fpga"])"));
}

TEST(WhatIf, SummaryListsEveryNodeWithItsPool) {
  WhatIfCluster c = demo();
  auto s = c.summary();
  EXPECT_EQ(s.at("nodes").as_array().size(), c.cluster().size());
  for (const auto& n : s.at("nodes").as_array()) {
    EXPECT_TRUE(n.as_object().contains("pool"));
    EXPECT_LE(n.at("requested").at("cpu").as_int64(), n.at("allocatable").at("cpu").as_int64() * 2);
  }
}

// The command and the sidebar load through one loader; only whether pools are
// inferred without a NodePools document differs, and errors carry the name the
// caller gives each document (a file path for the command).
TEST(WhatIf, OneLoaderForDocumentsNamedByTheCaller) {
  WhatIfInputs inputs;
  inputs.snapshot = {"cluster.yaml", json::parse(demo_cluster_text())};
  auto inferred = load_what_if_cluster(inputs);
  ASSERT_TRUE(inferred) << inferred.error().what();
  ASSERT_NE(inferred->resolved_pools(), nullptr);
  EXPECT_FALSE(inferred->resolved_pools()->pools.empty());
  inputs.infer_pools = false;
  auto plain = load_what_if_cluster(inputs);
  ASSERT_TRUE(plain) << plain.error().what();
  EXPECT_EQ(plain->resolved_pools(), nullptr);

  inputs.pools = NamedDocument{"pools.yaml", json::parse(R"({"apiVersion": "tightpack.io/v1alpha1",
      "kind": "NodePools", "pools": [{"name": "x", "maxSzie": 3}]})")};
  auto bad = load_what_if_cluster(inputs);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().what().rfind("pools.yaml: ", 0), 0u) << bad.error().what();
  inputs.pools.reset();
  inputs.scheduler_config = NamedDocument{"config.yaml", json::parse(R"({"profiles": 3})")};
  auto bad_config = load_what_if_cluster(inputs);
  ASSERT_FALSE(bad_config);
  EXPECT_EQ(bad_config.error().what().rfind("config.yaml: ", 0), 0u) << bad_config.error().what();
}

TEST(WhatIf, ErrorsNameTheDocumentFieldAndValue) {
  EXPECT_EQ(load_what_if_cluster("{\"items\": [", "", "").error().what().rfind("snapshot: ", 0),
            0u);
  auto empty = load_what_if_cluster(R"({"apiVersion": "v1", "kind": "List", "items": []})", "", "");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().what().find("has no nodes"), std::string::npos);
  auto bad_pools =
      load_what_if_cluster(demo_cluster_text(), R"({"apiVersion": "tightpack.io/v1alpha1",
      "kind": "NodePools", "pools": [{"name": "x", "maxSzie": 3}]})",
                           "");
  ASSERT_FALSE(bad_pools);
  EXPECT_NE(bad_pools.error().what().find("pools: "), std::string::npos);
  EXPECT_NE(bad_pools.error().what().find("maxSzie"), std::string::npos);

  WhatIfCluster c = demo();
  EXPECT_NE(place_text(c, "[1,2").find("\"error\""), std::string::npos);
  EXPECT_NE(place_text(c, R"({"pod": {}, "replicas": 0})").find("replicas"), std::string::npos);
  EXPECT_NE(place_text(c, R"({"pod": {}, "replicas": 1, "colour": 1})").find("colour"),
            std::string::npos);
  EXPECT_NE(
      place_text(c, R"({"pod": {}, "replicas": 1, "profile": "spread"})").find("\\\"spread\\\""),
      std::string::npos);
  const std::string wrong_type = place_text(
      c,
      R"({"pod": {"spec": {"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}}, "replicas": 1})");
  EXPECT_NE(wrong_type.find("cpu"), std::string::npos) << wrong_type;
  EXPECT_NE(wrong_type.find("lots"), std::string::npos) << wrong_type;
  // Still usable after every bad request.
  EXPECT_EQ(place_text(c, worker_request(1, "default")).find("\"error\""), std::string::npos);
}

}  // namespace
}  // namespace tightpack

namespace tightpack {
namespace {

// Two GPU pools, one per zone, each a template only; `home` is a notebook's
// claim: bound to a disk in zone a, or not yet created (no class).
std::string zonal_cluster(const std::string& home) {
  return R"({"apiVersion": "v1", "kind": "List", "items": [
    {"kind": "Node", "metadata": {"name": "core-0", "labels": {"cloud.google.com/gke-nodepool": "core",
       "kubernetes.io/hostname": "core-0", "topology.kubernetes.io/zone": "z-a", "topology.gke.io/zone": "z-a"}},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}},
    {"kind": "StorageClass", "metadata": {"name": "old-default", "creationTimestamp": "2024-01-01T00:00:00Z",
       "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
     "provisioner": "pd.csi.storage.gke.io", "volumeBindingMode": "Immediate"},
    {"kind": "StorageClass", "metadata": {"name": "standard-rwo", "creationTimestamp": "2025-01-01T00:00:00Z",
       "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
     "provisioner": "pd.csi.storage.gke.io", "volumeBindingMode": "WaitForFirstConsumer"},
    {"kind": "PersistentVolume", "metadata": {"name": "pvc-1"},
     "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "standard-rwo",
              "claimRef": {"namespace": "hub", "name": "claim-alice"},
              "csi": {"driver": "pd.csi.storage.gke.io", "volumeHandle": "d"},
              "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "topology.gke.io/zone", "operator": "In", "values": ["z-a"]}]}]}}},
     "status": {"phase": "Bound"}},
    )" + home +
         R"(]})";
}

constexpr const char* kBoundHome = R"({"kind": "PersistentVolumeClaim",
  "metadata": {"name": "claim-alice", "namespace": "hub", "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
  "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}},
           "storageClassName": "standard-rwo", "volumeName": "pvc-1"}, "status": {"phase": "Bound"}})";
constexpr const char* kNewHome = R"({"kind": "PersistentVolumeClaim",
  "metadata": {"name": "claim-alice", "namespace": "hub"},
  "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}})";

constexpr const char* kZonalPools =
    R"({"apiVersion": "tightpack.io/v1alpha1", "kind": "NodePools", "pools": [
  {"name": "gpu-a", "minSize": 0, "maxSize": 0, "template": {"labels": {"cloud.google.com/gke-nodepool": "gpu-a",
     "topology.kubernetes.io/zone": "z-a", "topology.gke.io/zone": "z-a"},
     "allocatable": {"cpu": "8", "memory": "30Gi", "pods": "110", "nvidia.com/gpu": "1"}}},
  {"name": "gpu-b", "minSize": 0, "maxSize": 2, "template": {"labels": {"cloud.google.com/gke-nodepool": "gpu-b",
     "topology.kubernetes.io/zone": "z-b", "topology.gke.io/zone": "z-b"},
     "allocatable": {"cpu": "8", "memory": "30Gi", "pods": "110", "nvidia.com/gpu": "1"}}}]})";

constexpr const char* kNotebook =
    R"({"pod": {"metadata": {"name": "jupyter-alice", "namespace": "hub"},
  "spec": {"containers": [{"name": "notebook", "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
           "volumes": [{"name": "home", "persistentVolumeClaim": {"claimName": "claim-alice"}}]}},
  "replicas": 1})";

TEST(WhatIf, AHomeDiskInAZoneWhosePoolIsAtMaxNamesThePoolThatWouldTakeIt) {
  auto c = load_what_if_cluster(zonal_cluster(kBoundHome), kZonalPools, "");
  ASSERT_TRUE(c) << c.error().what();
  const auto answer = json::parse(place_text(*c, kNotebook)).as_object();
  ASSERT_FALSE(answer.contains("error")) << answer;
  const auto& unplaced = answer.at("scaleUp").at("unplaced").as_array();
  ASSERT_EQ(unplaced.size(), 1u) << answer;
  EXPECT_EQ(unplaced[0].at("blockedByVolumes"), json::array{"gpu-b"}) << unplaced[0];
  EXPECT_EQ(unplaced[0].at("poolsAtMax"), json::parse(R"([{"pool": "gpu-a", "maxSize": 0}])"))
      << unplaced[0];
  // The disk and its zone, from the volume's node affinity on the CSI driver's key.
  EXPECT_EQ(answer.at("claims"), json::parse(R"([{"namespace": "hub", "name": "claim-alice",
    "listed": true, "storageClass": "standard-rwo", "defaultClass": false,
    "bindingMode": "WaitForFirstConsumer", "volume": "pvc-1", "bound": true, "zones": ["z-a"], "mountableNodes": 1}])"));
}

TEST(WhatIf, AClaimAboutToBeCreatedGetsTheNewestDefaultClass) {
  // The newest default class waits for the first consumer, so the disk is made
  // where the notebook goes: pool gpu-b grows. The older, Immediate default
  // would leave it waiting for its claim.
  auto c = load_what_if_cluster(zonal_cluster(kNewHome), kZonalPools, "");
  ASSERT_TRUE(c) << c.error().what();
  const auto answer = json::parse(place_text(*c, kNotebook)).as_object();
  ASSERT_FALSE(answer.contains("error")) << answer;
  EXPECT_EQ(answer.at("scaleUp").at("pools").at(0).at("pool"), "gpu-b") << answer;
  EXPECT_TRUE(answer.at("scaleUp").at("unplaced").as_array().empty()) << answer;
  EXPECT_EQ(answer.at("claims"), json::parse(R"([{"namespace": "hub", "name": "claim-alice",
    "listed": true, "storageClass": "standard-rwo", "defaultClass": true,
    "bindingMode": "WaitForFirstConsumer", "volume": null, "bound": false, "zones": [],
    "mountableNodes": null}])"));
}

TEST(WhatIf, AClaimsClassAndDiskAreSaidOnlyWhenTheClusterListsThem) {
  // The class annotation names a class the cluster lacks, the claim a volume
  // it lacks; a local volume is pinned to a node by its hostname, not a zone;
  // the last claim is not there at all.
  auto c = load_what_if_cluster(zonal_cluster(R"({"kind": "PersistentVolumeClaim",
    "metadata": {"name": "claim-alice", "namespace": "hub",
                 "annotations": {"volume.beta.kubernetes.io/storage-class": "premium-rwo"}},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}},
             "volumeName": "pvc-gone"}},
    {"kind": "PersistentVolume", "metadata": {"name": "local-1"},
     "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "local": {"path": "/mnt/a"},
              "claimRef": {"namespace": "hub", "name": "scratch"},
              "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": ["core-0"]}]}]}}}},
    {"kind": "PersistentVolumeClaim", "metadata": {"name": "scratch", "namespace": "hub"},
     "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
              "storageClassName": "", "volumeName": "local-1"}})"),
                                "", "");
  ASSERT_TRUE(c) << c.error().what();
  const auto answer = json::parse(place_text(*c, R"({"pod": {"metadata": {"namespace": "hub"},
    "spec": {"containers": [{"name": "notebook"}], "volumes": [
      {"name": "home", "persistentVolumeClaim": {"claimName": "claim-alice"}},
      {"name": "tmp", "emptyDir": {}},
      {"name": "scratch", "persistentVolumeClaim": {"claimName": "scratch"}},
      {"name": "shared", "persistentVolumeClaim": {"claimName": "home-nfs", "readOnly": true}}]}},
    "replicas": 1})"))
                          .as_object();
  ASSERT_FALSE(answer.contains("error")) << answer;
  EXPECT_EQ(answer.at("claims"), json::parse(R"([
    {"namespace": "hub", "name": "claim-alice", "listed": true, "storageClass": "premium-rwo",
     "defaultClass": false, "bindingMode": null, "volume": "pvc-gone", "bound": false, "zones": [],
     "mountableNodes": null},
    {"namespace": "hub", "name": "scratch", "listed": true, "storageClass": null,
     "defaultClass": false, "bindingMode": null, "volume": "local-1", "bound": true, "zones": [],
     "mountableNodes": 1},
    {"namespace": "hub", "name": "home-nfs", "listed": false, "storageClass": null,
     "defaultClass": false, "bindingMode": null, "volume": null, "bound": false, "zones": [],
     "mountableNodes": null}])"));
}

TEST(WhatIf, AKarpenterPoolsGrowthSaysItIsClusterAutoscalersModel) {
  auto c = load_what_if_cluster(R"({"apiVersion": "v1", "kind": "List", "items": [
    {"kind": "Node", "metadata": {"name": "k-1", "labels": {"karpenter.sh/nodepool": "default",
       "node.kubernetes.io/instance-type": "m5.xlarge"}},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}]})",
                                "", "");
  ASSERT_TRUE(c) << c.error().what();
  const auto answer = json::parse(place_text(*c, R"({"pod": {"spec": {"containers": [
    {"name": "w", "resources": {"requests": {"cpu": "3"}}}]}}, "replicas": 2})"))
                          .as_object();
  ASSERT_FALSE(answer.contains("error")) << answer;
  const auto& grown = answer.at("scaleUp").at("pools").as_array();
  ASSERT_EQ(grown.size(), 1u) << answer;
  EXPECT_EQ(grown[0].at("managedBy"), "karpenter");
  const auto& notes = answer.at("scaleUp").at("notes").as_array();
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const json::value& n) {
    return n.as_string().starts_with("Karpenter manages default (karpenter.sh/nodepool)");
  })) << answer.at("scaleUp").at("notes");
  EXPECT_EQ(json::parse(summary_text(*c)).at("pools").at(0).at("managedBy"), "karpenter");
}

// One pod's outlook, the words the spawn page and a waiting pod's event give:
// a returning user's GPU notebook cannot start (her disk's zone has a GPU pool
// at max size 0, the other zone's pool cannot reach her disk); a new user's
// waits for pool gpu-b's node, ready in GKE's GPU provisioning time; a small
// CPU pod fits the core node now.
TEST(WhatIf, OnePodsOutlookInWords) {
  auto returning = load_what_if_cluster(zonal_cluster(kBoundHome), kZonalPools, "");
  ASSERT_TRUE(returning) << returning.error().what();
  auto answer = json::parse(place_text(*returning, kNotebook)).as_object();
  EXPECT_EQ(answer.at("outlook"), json::parse(R"js({"kind": "cannot", "summary": "Cannot start now",
    "message": "Cannot start now: its disk is in another zone than the nodes pool gpu-b can add; pool gpu-a is at its maximum size (0 nodes).",
    "reason": "its disk is in another zone than the nodes pool gpu-b can add; pool gpu-a is at its maximum size (0 nodes)"})js"))
      << answer;

  auto fresh = load_what_if_cluster(zonal_cluster(kNewHome), kZonalPools, "");
  ASSERT_TRUE(fresh) << fresh.error().what();
  answer = json::parse(place_text(*fresh, kNotebook)).as_object();
  EXPECT_EQ(answer.at("outlook"), json::parse(R"({"kind": "new-node", "summary": "About 10 minutes",
    "message": "About 10 minutes: cluster-autoscaler adds a node to pool gpu-b for it.",
    "pools": ["gpu-b"], "readyInSeconds": 600})"))
      << answer;

  std::string small = kNotebook;
  small.replace(small.find(R"({"limits": {"nvidia.com/gpu": "1"}})"),
                std::string_view(R"({"limits": {"nvidia.com/gpu": "1"}})").size(),
                R"({"requests": {"cpu": "1"}})");
  answer = json::parse(place_text(*fresh, small)).as_object();
  EXPECT_EQ(answer.at("outlook").at("kind"), "now") << answer;
  EXPECT_EQ(answer.at("outlook").at("message"), "Ready now: a node has room for it.");

  // Many copies have no one outlook.
  std::string two = small;
  two.replace(two.find(R"("replicas": 1)"), 13, R"("replicas": 2)");
  EXPECT_FALSE(json::parse(place_text(*fresh, two)).as_object().contains("outlook"));
}

// A pool in the other zone is named for the disk even at its max size: a
// larger max would not help her.
TEST(WhatIf, ADiskElsewhereIsSaidEvenOfAPoolAtItsMax) {
  std::string pools = kZonalPools;
  pools.replace(pools.find(R"("maxSize": 2)"), 12, R"("maxSize": 0)");
  auto c = load_what_if_cluster(zonal_cluster(kBoundHome), pools, "");
  ASSERT_TRUE(c) << c.error().what();
  const auto answer = json::parse(place_text(*c, kNotebook)).as_object();
  EXPECT_EQ(answer.at("outlook").at("reason"),
            "its disk is in another zone than the nodes pool gpu-b can add; pool gpu-a is at its "
            "maximum size (0 nodes)")
      << answer;
  EXPECT_EQ(answer.at("scaleUp").at("unplaced").at(0).at("blockedByVolumes"), json::array{})
      << "gpu-b cannot grow: it is not where she could run if her disk moved";
}

// A pod the scheduler found no room for, which cluster-autoscaler's filters
// fit on an existing node: while it waits (room freed since its attempt) it
// is told nothing; on the spawn page, where the profile has just rejected it
// there, it cannot start.
TEST(WhatIf, APodAnExistingNodeTakesByTheAutoscalersFiltersIsNotToldCannot) {
  pools::ScaleUpPrediction p;
  p.replicas_pending = 1;
  pools::Unplaced u;
  u.replicas = {"hub/jupyter-alice-0"};
  u.reason = "cluster-autoscaler's filters let it fit node user-a, so no pool grows for it";
  u.fits_node = "user-a";
  p.unplaced.push_back(u);
  EXPECT_FALSE(waiting_outlook(p));
  EXPECT_EQ(outlook_of(p).kind, Outlook::Kind::kCannot);  // the spawn page's: the profile said no
  p.unplaced.front().fits_node.clear();
  ASSERT_TRUE(waiting_outlook(p));
  EXPECT_EQ(waiting_outlook(p)->kind, Outlook::Kind::kCannot);
}

TEST(WhatIf, AWaitingPodsEventCountsDown) {
  Outlook o{Outlook::Kind::kNewNode, {"gpu-t4"}, 600, ""};
  EXPECT_EQ(outlook_event_note(o, 540),
            "No node has room for this pod now; cluster-autoscaler adds a node to pool gpu-t4, "
            "ready in about 9 minutes (tightpack's prediction).");
  EXPECT_EQ(outlook_event_note(o, 20).find("under a minute") != std::string::npos, true);
  EXPECT_EQ(outlook_event_note(o, -5).find("under a minute") != std::string::npos, true);
  Outlook full{Outlook::Kind::kCannot, {}, 0, "pool gpu-t4 is at its maximum size (2 nodes)"};
  EXPECT_EQ(outlook_event_note(full, 0),
            "No node has room for this pod now, and cluster-autoscaler cannot add one: pool "
            "gpu-t4 is at its maximum size (2 nodes).");
  EXPECT_EQ(wait_text(89), "about 1 minute");
  EXPECT_EQ(wait_text(90), "about 2 minutes");
}

}  // namespace
}  // namespace tightpack

namespace tightpack {
namespace {

// The hub's question for alice before her first spawn: her home claim as
// KubeSpawner would make it (not yet in the cluster), a GPU profile and a
// small one; a pod the engine cannot read spoils only its own answer.
TEST(SpawnQuestion, EachProfilesPodIsAnsweredWithItsOutlookAlone) {
  const std::string cluster_text =
      zonal_cluster(R"({"kind": "Namespace", "metadata": {"name": "hub"}})");
  auto snapshot = pools::decode_cluster_snapshot(json::parse(cluster_text), JsonPath());
  ASSERT_TRUE(snapshot) << snapshot.error().what();
  auto question = decode_spawn_question(json::parse(R"({"namespace": "hub", "user": "alice",
    "claims": [{"metadata": {"name": "claim-alice"}, "spec": {"accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "10Gi"}}}}],
    "pods": [
      {"id": "gpu", "pod": {"metadata": {"name": "jupyter-alice"}, "spec": {"containers": [{"name": "notebook",
         "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
         "volumes": [{"name": "home", "persistentVolumeClaim": {"claimName": "claim-alice"}}]}}},
      {"id": "small", "pod": {"metadata": {"name": "jupyter-alice"}, "spec": {"containers": [{"name": "notebook",
         "resources": {"requests": {"cpu": "500m"}}}]}}},
      {"id": "broken", "pod": {"spec": {"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}}}]})"));
  ASSERT_TRUE(question) << question.error().what();
  ASSERT_TRUE(add_new_claims(*snapshot, *question));
  ASSERT_EQ(snapshot->objects.claims.size(), 1u);
  auto c = WhatIfCluster::from_snapshot(std::move(*snapshot), JsonPath());
  ASSERT_TRUE(c) << c.error().what();
  auto pools = pools::decode_pools_config(json::parse(kZonalPools), JsonPath());
  ASSERT_TRUE(pools) << pools.error().what();
  c->use_pools(std::move(*pools));
  const json::object answer = answer_spawn_question(*c, *question);
  const auto& answers = answer.at("answers").as_array();
  ASSERT_EQ(answers.size(), 3u) << answer;
  EXPECT_EQ(answers[0].at("id"), "gpu");
  EXPECT_EQ(answers[0].at("outlook").at("kind"), "new-node") << answer;
  EXPECT_EQ(answers[0].at("outlook").at("pools"), json::array{"gpu-b"}) << answer;
  EXPECT_EQ(answers[1].at("outlook").at("kind"), "now") << answer;
  const std::string error(answers[2].at("error").as_string());
  EXPECT_NE(error.find("pods[2]."), std::string::npos) << error;
  EXPECT_NE(error.find("lots"), std::string::npos) << error;
  // Nothing of the cluster but the pool's name: no node, no other pod.
  EXPECT_EQ(json::serialize(answer).find("core-0"), std::string::npos) << answer;
}

TEST(SpawnQuestion, BadQuestionsNameTheFieldAndValue) {
  auto error = [](const char* text) {
    auto q = decode_spawn_question(json::parse(text));
    return q ? std::string("accepted") : q.error().what();
  };
  EXPECT_EQ(error(R"({"namespace": "hub", "pods": [{"id": "a", "pod": {}}], "extra": 1})"),
            "$.extra: unknown field \"extra\" (known: namespace, user, claims, pods)");
  EXPECT_EQ(error(R"({"pods": [{"id": "a", "pod": {}}]})"), "$.namespace: is required");
  EXPECT_EQ(error(R"({"namespace": "hub", "pods": []})"), "$.pods: 0 pods; from 1 to 64");
  EXPECT_EQ(
      error(
          R"({"namespace": "hub", "pods": [{"id": "a", "pod": {"metadata": {"namespace": "other"}}}]})"),
      "$.pods[0].pod.metadata.namespace: \"other\" is not the question's namespace \"hub\"");
  EXPECT_EQ(
      error(R"({"namespace": "hub", "pods": [{"id": "a", "pod": {}}, {"id": "a", "pod": {}}]})"),
      "$.pods[1].id: \"a\" twice");
  EXPECT_EQ(
      error(
          R"({"namespace": "hub", "claims": [{"kind": "Pod"}], "pods": [{"id": "a", "pod": {}}]})"),
      "$.claims[0].kind: is not PersistentVolumeClaim: \"Pod\"");
}

}  // namespace
}  // namespace tightpack

namespace tightpack {
namespace {

std::vector<std::string> admitted_by(WhatIfCluster& c, const std::string& admission) {
  const std::string request =
      R"({"pod": {"metadata": {"name": "gpu"}, "spec": {"containers": [{"name": "nb",
      "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}, "replicas": 1)" +
      admission + "}";
  const json::value answer = json::parse(place_text(c, request));
  std::vector<std::string> out;
  if (!answer.as_object().contains("admission")) {
    ADD_FAILURE() << json::serialize(answer);
    return out;
  }
  for (const json::value& change : answer.at("admission").as_array())
    out.emplace_back(change.at("by").as_string());
  return out;
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// GKE's API server runs ExtendedResourceToleration and its nodes say they
// are GKE's; a question admits its pod so unless it says otherwise. The spawn
// page's questions say nothing: a GPU profile on GKE tolerates its GPU pool.
TEST(WhatIf, AGkeClusterAdmitsAsGkeUnlessTheQuestionSays) {
  WhatIfCluster gke = demo();
  ASSERT_TRUE(gke.runs_extended_resource_toleration());
  EXPECT_TRUE(has(admitted_by(gke, ""), "ExtendedResourceToleration"));
  EXPECT_TRUE(has(admitted_by(gke, R"(, "admission": {"extendedResourceToleration": null})"),
                  "ExtendedResourceToleration"));
  EXPECT_FALSE(has(admitted_by(gke, R"(, "admission": {"extendedResourceToleration": false})"),
                   "ExtendedResourceToleration"));

  auto eks = load_what_if_cluster(R"({"kind": "List", "items": [{"kind": "Node",
      "metadata": {"name": "n", "labels": {"eks.amazonaws.com/nodegroup": "gpu"}},
      "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}]})",
                                  "", "");
  ASSERT_TRUE(eks) << eks.error().what();
  EXPECT_FALSE(eks->runs_extended_resource_toleration());
  EXPECT_FALSE(has(admitted_by(*eks, ""), "ExtendedResourceToleration"));
  EXPECT_TRUE(has(admitted_by(*eks, R"(, "admission": {"extendedResourceToleration": true})"),
                  "ExtendedResourceToleration"));
}

}  // namespace
}  // namespace tightpack

namespace tightpack {
namespace {

// KubeSpawner adds no toleration for a GPU profile on GKE: GKE's API server
// does (ExtendedResourceToleration). The spawn page's question says nothing
// of admission, and the answer is GKE's.
TEST(SpawnQuestion, AGpuProfileOnGkeToleratesItsPoolAsGkesApiServerMakesIt) {
  auto snapshot = pools::decode_cluster_snapshot(json::parse(demo_cluster_text()), JsonPath());
  ASSERT_TRUE(snapshot) << snapshot.error().what();
  auto question = decode_spawn_question(json::parse(R"({"namespace": "daskhub", "user": "alice",
    "pods": [{"id": "t4", "pod": {"metadata": {"name": "jupyter-alice"}, "spec": {
      "tolerations": [{"key": "hub.jupyter.org/dedicated", "operator": "Equal", "value": "user",
                       "effect": "NoSchedule"}],
      "containers": [{"name": "notebook", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}}]})"));
  ASSERT_TRUE(question) << question.error().what();
  auto c = WhatIfCluster::from_snapshot(std::move(*snapshot), JsonPath());
  ASSERT_TRUE(c) << c.error().what();
  const json::object answer = answer_spawn_question(*c, *question);
  const json::value& outlook = answer.at("answers").at(0).at("outlook");
  EXPECT_NE(outlook.at("kind"), "cannot") << answer;
  EXPECT_EQ(json::serialize(answer).find("nvidia.com/gpu: present"), std::string::npos) << answer;
}

}  // namespace
}  // namespace tightpack

namespace tightpack {
namespace {

// The answers the WebAssembly module gives too (wasm/test/errors.test.js reads
// the same file): the sidebar's form checks what users type with them.
TEST(WhatIf, QuantitiesAreReadAsTheApiServerReadsThem) {
  std::ifstream f(TIGHTPACK_SOURCE_DIR "/core/tests/data/quantity_answers.json");
  std::stringstream text;
  text << f.rdbuf();
  const boost::json::value cases = boost::json::parse(text.str());
  ASSERT_GT(cases.as_array().size(), 10u);
  for (const auto& c : cases.as_array()) {
    const std::string quantity(c.at(0).as_string());
    EXPECT_EQ(quantity_text(quantity), boost::json::serialize(c.at(1))) << quantity;
  }
}

}  // namespace
}  // namespace tightpack
