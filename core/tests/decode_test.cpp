#include "tightpack/decode.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "test_util.hpp"

namespace tightpack {
namespace {

using testing::json_of;
using testing::kGi;
using testing::kMi;
using testing::labels;
using testing::resources;

Error node_error(std::string_view text) {
  auto n = decode_node(json_of(text), JsonPath());
  if (n) {
    ADD_FAILURE() << "decoded, expected an error: " << text;
    return {};
  }
  return n.error();
}

Error pod_error(std::string_view text) {
  auto p = decode_pod(json_of(text), JsonPath());
  if (p) {
    ADD_FAILURE() << "decoded, expected an error: " << text;
    return {};
  }
  return p.error();
}

Error objects_error(std::string_view text) {
  ClusterObjects out;
  auto s = decode_objects(json_of(text), JsonPath(), out);
  if (s) {
    ADD_FAILURE() << "decoded, expected an error: " << text;
    return {};
  }
  return s.error();
}

ClusterObjects objects(std::string_view text) {
  ClusterObjects out;
  auto s = decode_objects(json_of(text), JsonPath(), out);
  if (!s) ADD_FAILURE() << s.error().what();
  return out;
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(DecodeNode, ReadsWhatSchedulingNeeds) {
  auto n = decode_node(json_of(R"({
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "n1", "labels": {"zone": "a", "disk": "ssd"}, "uid": "x"},
    "spec": {"unschedulable": true, "podCIDR": "10.0.0.0/24",
             "taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"},
                        {"key": "spot", "effect": "PreferNoSchedule"}]},
    "status": {
      "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "2"},
      "allocatable": {"cpu": "7500m", "memory": "30Gi", "pods": "110", "nvidia.com/gpu": "2",
                      "ephemeral-storage": "100Gi"},
      "images": [{"names": ["busybox:1.36", "docker.io/busybox@sha256:abc"], "sizeBytes": 4000000}],
      "conditions": [{"type": "Ready", "status": "True"}]}})"),
                       JsonPath());
  ASSERT_TRUE(n) << n.error().what();
  EXPECT_EQ(n->name, "n1");
  EXPECT_EQ(n->labels, labels({{"disk", "ssd"}, {"zone", "a"}}));
  EXPECT_TRUE(n->unschedulable);
  ASSERT_EQ(n->taints.size(), 2u);
  EXPECT_EQ(n->taints[0].key, "gpu");
  EXPECT_EQ(n->taints[0].value, "true");
  EXPECT_EQ(n->taints[0].effect, "NoSchedule");
  EXPECT_EQ(n->taints[1].key, "spot");
  EXPECT_EQ(n->taints[1].value, "");
  EXPECT_EQ(n->taints[1].effect, "PreferNoSchedule");
  EXPECT_EQ(n->allocatable, resources({{"cpu", 7500},
                                       {"ephemeral-storage", 100 * kGi},
                                       {"memory", 30 * kGi},
                                       {"nvidia.com/gpu", 2},
                                       {"pods", 110}}));
  EXPECT_EQ(n->capacity,
            resources({{"cpu", 8000}, {"memory", 32 * kGi}, {"nvidia.com/gpu", 2}, {"pods", 110}}));
  ASSERT_EQ(n->images.size(), 1u);
  EXPECT_EQ(n->images[0].names,
            (std::vector<std::string>{"busybox:1.36", "docker.io/busybox@sha256:abc"}));
  EXPECT_EQ(n->images[0].size_bytes, 4000000);
}

TEST(DecodeNode, AllocatableDefaultsToCapacity) {
  Node n = testing::node_from_json(R"({"metadata": {"name": "n"},
      "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "10"}}})");
  EXPECT_EQ(n.allocatable, resources({{"cpu", 4000}, {"memory", 8 * kGi}, {"pods", 10}}));
  // null is "not set" to Go's decoder: defaulted as well.
  n = testing::node_from_json(R"({"metadata": {"name": "n"},
      "status": {"capacity": {"cpu": "4"}, "allocatable": null}})");
  EXPECT_EQ(n.allocatable, resources({{"cpu", 4000}}));
  // An empty map is set: SetDefaults_NodeStatus leaves it alone.
  n = testing::node_from_json(R"({"metadata": {"name": "n"},
      "status": {"capacity": {"cpu": "4"}, "allocatable": {}}})");
  EXPECT_TRUE(n.allocatable.empty());
  // Partially set allocatable is not merged with capacity.
  n = testing::node_from_json(R"({"metadata": {"name": "n"},
      "status": {"capacity": {"cpu": "4", "memory": "1Gi"}, "allocatable": {"cpu": "3"}}})");
  EXPECT_EQ(n.allocatable, resources({{"cpu", 3000}}));
}

TEST(DecodeNode, QuantitiesMayBeJsonNumbers) {
  Node n = testing::node_from_json(R"({"metadata": {"name": "n"},
      "status": {"allocatable": {"cpu": 4, "memory": 1073741824, "pods": 110, "example.com/x": 0.5}}})");
  EXPECT_EQ(n.allocatable,
            resources({{"cpu", 4000}, {"example.com/x", 1}, {"memory", kGi}, {"pods", 110}}));
  n = testing::node_from_json(
      R"({"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": 0.5}}})");
  EXPECT_EQ(n.allocatable, resources({{"cpu", 500}}));
}

TEST(DecodeNode, QuantityWithSurroundingSpaces) {
  // Quantity.UnmarshalJSON trims spaces before parsing.
  Node n = testing::node_from_json(R"({"metadata": {"name": "n"},
      "status": {"allocatable": {"cpu": " 250m ", "memory": "\t1Gi\n"}}})");
  EXPECT_EQ(n.allocatable, resources({{"cpu", 250}, {"memory", kGi}}));
}

TEST(DecodeNode, NeedsAName) {
  Error e = node_error(R"({"metadata": {"labels": {}}})");
  EXPECT_EQ(e.path, "$.metadata.name");
  EXPECT_EQ(e.message, "a node needs a name");
  e = node_error(R"({})");
  EXPECT_EQ(e.path, "$.metadata.name");
}

TEST(DecodeNode, WrongTypesNameThePath) {
  Error e = node_error(R"({"metadata": {"name": 5}})");
  EXPECT_EQ(e.path, "$.metadata.name");
  EXPECT_EQ(e.message, "expected a string, got an integer");

  e = node_error(R"({"metadata": {"name": "n", "labels": {"app.kubernetes.io/name": true}}})");
  EXPECT_EQ(e.path, "$.metadata.labels[\"app.kubernetes.io/name\"]");
  EXPECT_EQ(e.message, "expected a string, got a boolean");

  e = node_error(R"({"metadata": {"name": "n"}, "spec": {"unschedulable": "yes"}})");
  EXPECT_EQ(e.path, "$.spec.unschedulable");
  EXPECT_EQ(e.message, "expected a boolean, got a string");

  e = node_error(
      R"({"metadata": {"name": "n"}, "spec": {"taints": [{"key": "a"}, {"key": ["b"]}]}})");
  EXPECT_EQ(e.path, "$.spec.taints[1].key");
  EXPECT_EQ(e.message, "expected a string, got an array");

  e = node_error(R"({"metadata": {"name": "n"}, "status": {"capacity": {"cpu": "lots"}}})");
  EXPECT_EQ(e.path, "$.status.capacity.cpu");
  EXPECT_TRUE(contains(e.message, "\"lots\"")) << e.message;

  e = node_error(R"({"metadata": {"name": "n"}, "status": {"allocatable": {"memory": {}}}})");
  EXPECT_EQ(e.path, "$.status.allocatable.memory");
  EXPECT_EQ(e.message, "expected a quantity, got an object");

  e = node_error(R"({"metadata": {"name": "n"}, "status": {"allocatable": {"memory": "-1Gi"}}})");
  EXPECT_EQ(e.path, "$.status.allocatable.memory");
  EXPECT_EQ(e.message, "quantity \"-1Gi\" must not be negative");

  e = node_error(R"({"metadata": {"name": "n"}, "status": {"images": [{"names": ["a", 1]}]}})");
  EXPECT_EQ(e.path, "$.status.images[0].names[1]");

  e = node_error(R"({"metadata": {"name": "n"}, "status": {"images": [{"sizeBytes": "big"}]}})");
  EXPECT_EQ(e.path, "$.status.images[0].sizeBytes");
  EXPECT_EQ(e.message, "expected an integer, got a string");

  e = node_error(R"([])");
  EXPECT_EQ(e.path, "$");
  EXPECT_EQ(e.message, "expected an object, got an array");
}

TEST(DecodePod, ReadsWhatSchedulingNeeds) {
  auto p = decode_pod(json_of(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-0", "namespace": "shop", "uid": "u-1", "labels": {"app": "web"},
                 "annotations": {"a": "b", "cluster-autoscaler.kubernetes.io/safe-to-evict": "false"},
                 "creationTimestamp": "2024-01-01T00:00:00Z"},
    "spec": {
      "nodeName": "n1", "schedulerName": "my-scheduler", "priority": 1000,
      "preemptionPolicy": "Never",
      "nodeSelector": {"disk": "ssd"},
      "overhead": {"cpu": "250m"},
      "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"},
                      {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                       "effect": "NoExecute", "tolerationSeconds": 300}],
      "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}],
           "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n9"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
          {"weight": 5, "preference": {"matchExpressions": [{"key": "gen", "operator": "Gt", "values": ["3"]}]}}]}},
      "containers": [{"name": "app", "image": "nginx", "unknownField": 1,
                      "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "UDP", "hostIP": "10.0.0.1"}],
                      "resources": {"requests": {"cpu": "500m", "memory": "128Mi"}}}],
      "volumes": [{"name": "cfg", "configMap": {"name": "x"}}]},
    "status": {"phase": "Running", "nominatedNodeName": "n2"}})"),
                      JsonPath());
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_EQ(p->key(), "shop/web-0");
  EXPECT_EQ(p->uid, "u-1");
  EXPECT_EQ(p->labels, labels({{"app", "web"}}));
  // Only the annotations the engine reads are kept.
  ASSERT_EQ(p->annotations.size(), 1u);
  EXPECT_EQ(p->annotations[0].first, "cluster-autoscaler.kubernetes.io/safe-to-evict");
  EXPECT_EQ(p->creation_timestamp, "2024-01-01T00:00:00Z");
  EXPECT_EQ(p->node_name, "n1");
  EXPECT_EQ(p->scheduler_name, "my-scheduler");
  EXPECT_EQ(p->priority, 1000);
  EXPECT_TRUE(p->preempt_never);
  EXPECT_EQ(p->node_selector, labels({{"disk", "ssd"}}));
  EXPECT_EQ(p->overhead, resources({{"cpu", 250}}));
  ASSERT_EQ(p->tolerations.size(), 2u);
  EXPECT_EQ(p->tolerations[0].op, "Exists");
  EXPECT_FALSE(p->tolerations[0].seconds.has_value());
  EXPECT_EQ(p->tolerations[1].seconds, 300);
  ASSERT_TRUE(p->node_affinity.required.has_value());
  ASSERT_EQ(p->node_affinity.required->size(), 1u);
  const NodeSelectorTerm& term = (*p->node_affinity.required)[0];
  ASSERT_EQ(term.match_expressions.size(), 1u);
  EXPECT_EQ(term.match_expressions[0].key, "zone");
  EXPECT_EQ(term.match_expressions[0].op, "In");
  EXPECT_EQ(term.match_expressions[0].values, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(term.match_fields.size(), 1u);
  EXPECT_EQ(term.match_fields[0].op, "NotIn");
  ASSERT_EQ(p->node_affinity.preferred.size(), 1u);
  EXPECT_EQ(p->node_affinity.preferred[0].weight, 5);
  EXPECT_EQ(p->node_affinity.preferred[0].preference.match_expressions[0].op, "Gt");
  ASSERT_EQ(p->containers.size(), 1u);
  EXPECT_EQ(p->containers[0].image, "nginx");
  ASSERT_EQ(p->containers[0].ports.size(), 1u);
  EXPECT_EQ(p->containers[0].ports[0].container_port, 80);
  EXPECT_EQ(p->containers[0].ports[0].host_port, 8080);
  EXPECT_EQ(p->containers[0].ports[0].protocol, "UDP");
  EXPECT_EQ(p->containers[0].ports[0].host_ip, "10.0.0.1");
  EXPECT_EQ(p->containers[0].requests, resources({{"cpu", 500}, {"memory", 128 * kMi}}));
  EXPECT_EQ(p->phase, "Running");
  EXPECT_FALSE(p->terminated());
  EXPECT_EQ(p->nominated_node_name, "n2");
  EXPECT_TRUE(p->pod_affinity_terms.empty());
  EXPECT_TRUE(p->topology_spread.empty());
  EXPECT_TRUE(p->volumes.empty());
  EXPECT_TRUE(p->image_volumes.empty());
}

TEST(DecodePod, ImageVolumes) {
  // spec.volumes[].image.reference, for ImageLocality (an image source of
  // sumImageScores in kube-scheduler v1.37), in the order of the volumes.
  Pod p = testing::pod_from_json(R"({"metadata": {"name": "p"}, "spec": {"volumes": [
      {"name": "model",
       "image": {"reference": "registry.example/model:v2", "pullPolicy": "IfNotPresent"}},
      {"name": "cfg", "configMap": {"name": "x"}},
      {"name": "none", "image": null},
      {"name": "data", "image": {"reference": "data"}}]}})");
  EXPECT_EQ(p.image_volumes, (std::vector<std::string>{"registry.example/model:v2", "data"}));
  EXPECT_TRUE(p.volumes.empty());
  // An image volume needs no volume plugin.
  p = testing::pod_from_json(R"({"metadata": {"name": "p"}, "spec": {"volumes": [
      {"name": "d", "persistentVolumeClaim": {"claimName": "d"}},
      {"name": "m", "image": {"reference": "m:1"}}]}})");
  ASSERT_EQ(p.volumes.size(), 1u);
  EXPECT_EQ(p.volumes[0].claim, "d");
  EXPECT_EQ(p.image_volumes, (std::vector<std::string>{"m:1"}));
}

TEST(DecodePod, SchedulingGates) {
  auto gated = decode_pod(
      json_of(
          R"({"metadata":{"name":"p"},"spec":{"schedulingGates":[{"name":"example.com/quota"}]}})"),
      JsonPath());
  ASSERT_TRUE(gated) << gated.error().what();
  EXPECT_TRUE(gated->scheduling_gated);
  auto open =
      decode_pod(json_of(R"({"metadata":{"name":"p"},"spec":{"schedulingGates":[]}})"), JsonPath());
  ASSERT_TRUE(open);
  EXPECT_FALSE(open->scheduling_gated);
}

TEST(DecodePod, Defaults) {
  Pod p = testing::pod_from_json(R"({"metadata": {"name": "p"}})");
  EXPECT_EQ(p.ns, "default");
  EXPECT_EQ(p.priority, 0);
  EXPECT_FALSE(p.preempt_never);
  EXPECT_FALSE(p.node_affinity.required.has_value());
  p = testing::pod_from_json(R"({"metadata": {"name": "p", "namespace": ""}})");
  EXPECT_EQ(p.ns, "default");
}

TEST(DecodePod, Phases) {
  for (const char* phase : {"Succeeded", "Failed"}) {
    Pod p = testing::pod_from_json(
        std::string(R"({"metadata": {"name": "p"}, "status": {"phase": ")") + phase + "\"}}");
    EXPECT_EQ(p.phase, phase);
    EXPECT_TRUE(p.terminated()) << phase;
  }
  for (const char* phase : {"Pending", "Running", "Unknown"}) {
    Pod p = testing::pod_from_json(
        std::string(R"({"metadata": {"name": "p"}, "status": {"phase": ")") + phase + "\"}}");
    EXPECT_FALSE(p.terminated()) << phase;
  }
}

TEST(DecodePod, FeaturesTheEngineDoesNotModel) {
  Pod p = testing::pod_from_json(R"({"metadata": {"name": "p"}, "spec": {
      "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone"}]},
                   "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}},
      "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]}})");
  ASSERT_EQ(p.pod_affinity_terms.size(), 1u);  // an empty list asks for nothing
  EXPECT_TRUE(p.pod_affinity_terms[0].required);
  EXPECT_FALSE(p.pod_affinity_terms[0].anti);
  ASSERT_EQ(p.volumes.size(), 1u);
  EXPECT_EQ(p.volumes[0].claim, "d");
  p = testing::pod_from_json(R"({"metadata": {"name": "p"}, "spec": {
      "topologySpreadConstraints": [], "volumes": [{"name": "tmp", "emptyDir": {}}]}})");
  EXPECT_TRUE(p.topology_spread.empty());
  EXPECT_TRUE(p.volumes.empty());
}

TEST(DecodePod, RequiredAffinityWithoutTermsIsKept) {
  // Set but empty: matches no node, which differs from "no required affinity".
  Pod p =
      testing::pod_from_json(R"({"metadata": {"name": "p"}, "spec": {"affinity": {"nodeAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}}})");
  ASSERT_TRUE(p.node_affinity.required.has_value());
  EXPECT_TRUE(p.node_affinity.required->empty());
}

TEST(DecodePod, WrongTypesNameThePath) {
  Error e = pod_error(R"({"metadata": {"name": "p"}, "spec": {"priority": "high"}})");
  EXPECT_EQ(e.path, "$.spec.priority");
  EXPECT_EQ(e.message, "expected an integer, got a string");

  e = pod_error(R"({"metadata": {"name": "p"}, "spec": {"priority": 1.5}})");
  EXPECT_EQ(e.path, "$.spec.priority");
  EXPECT_EQ(e.message, "expected an integer, got a number");

  e = pod_error(R"({"metadata": {"name": "p"}, "spec": {"priority": 3000000000}})");
  EXPECT_EQ(e.path, "$.spec.priority");
  EXPECT_EQ(e.message, "integer 3000000000 is out of range");

  e = pod_error(R"({"metadata": {"name": "p"}, "spec": {"priority": 18446744073709551615}})");
  EXPECT_EQ(e.path, "$.spec.priority");
  EXPECT_TRUE(contains(e.message, "out of range")) << e.message;

  e = pod_error(R"({"metadata": {"name": "p"}, "spec": {"containers": {}}})");
  EXPECT_EQ(e.path, "$.spec.containers");
  EXPECT_EQ(e.message, "expected an array, got an object");

  e = pod_error(
      R"({"spec": {"containers": [{"name": "a"}, {"resources": {"requests": {"cpu": "1x"}}}]}})");
  EXPECT_EQ(e.path, "$.spec.containers[1].resources.requests.cpu");
  EXPECT_TRUE(contains(e.message, "\"1x\"")) << e.message;

  e = pod_error(R"({"spec": {"initContainers": [{"resources": {"limits": {"memory": false}}}]}})");
  EXPECT_EQ(e.path, "$.spec.initContainers[0].resources.limits.memory");
  EXPECT_EQ(e.message, "expected a quantity, got a boolean");

  e = pod_error(R"({"spec": {"containers": [{"ports": [{"hostPort": "80"}]}]}})");
  EXPECT_EQ(e.path, "$.spec.containers[0].ports[0].hostPort");

  e = pod_error(R"({"spec": {"tolerations": [{"key": "a", "tolerationSeconds": "5"}]}})");
  EXPECT_EQ(e.path, "$.spec.tolerations[0].tolerationSeconds");

  e = pod_error(
      R"({"spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "values": ["a", 7]}]}]}}}}})");
  EXPECT_EQ(e.path,
            "$.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms[0].matchExpressions[0].values[1]");
  EXPECT_EQ(e.message, "expected a string, got an integer");

  e = pod_error(
      R"({"spec": {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution":
      [{"weight": "1"}]}}}})");
  EXPECT_EQ(
      e.path,
      "$.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight");

  e = pod_error(R"({"spec": {"nodeSelector": {"disk": "ssd", "zone": 1}}})");
  EXPECT_EQ(e.path, "$.spec.nodeSelector.zone");
  EXPECT_EQ(e.message, "expected a string, got an integer");

  e = pod_error(R"({"metadata": {"name": "p"}, "status": {"phase": 3}})");
  EXPECT_EQ(e.path, "$.status.phase");

  e = pod_error(R"({"spec": {"volumes": [{"name": "cfg", "configMap": {"name": "x"}},
      {"name": "model", "image": "registry.example/model:v2"}]}})");
  EXPECT_EQ(e.path, "$.spec.volumes[1].image");
  EXPECT_EQ(e.message, "expected an object, got a string");

  e = pod_error(R"({"spec": {"volumes": [{"name": "model", "image": {"reference": 2}}]}})");
  EXPECT_EQ(e.path, "$.spec.volumes[0].image.reference");
  EXPECT_EQ(e.message, "expected a string, got an integer");

  e = pod_error(R"({"spec": {"volumes": {"name": "model"}}})");
  EXPECT_EQ(e.path, "$.spec.volumes");
  EXPECT_EQ(e.message, "expected an array, got an object");
}

TEST(DecodeObjects, KubectlListOfNodesAndPods) {
  // The shape of `kubectl get nodes,pods -A -o json`.
  ClusterObjects out = objects(R"({
    "apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
    "items": [
      {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
       "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}},
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "kube-system"},
       "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]},
       "status": {"phase": "Running"}},
      {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"}, "spec": {"ports": "whatever"}},
      {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}}]})");
  ASSERT_EQ(out.nodes.size(), 2u);
  EXPECT_EQ(out.nodes[0].name, "n1");
  EXPECT_EQ(out.nodes[1].name, "n2");
  ASSERT_EQ(out.pods.size(), 1u);
  EXPECT_EQ(out.pods[0].key(), "kube-system/p1");
  EXPECT_EQ(out.pods[0].node_name, "n1");
}

TEST(DecodeObjects, ErrorPathInsideAList) {
  Error e = objects_error(R"({"kind": "List", "items": [
      {"kind": "Node", "metadata": {"name": "a"}},
      {"kind": "Pod", "metadata": {"name": "p0"}},
      {"kind": "Pod", "metadata": {"name": "p1"}},
      {"kind": "Pod", "metadata": {"name": "p2"},
       "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "two"}}}]}}]})");
  EXPECT_EQ(e.path, "$.items[3].spec.containers[0].resources.requests.cpu");
  EXPECT_TRUE(contains(e.message, "\"two\"")) << e.message;
  EXPECT_EQ(e.what(), e.path + ": " + e.message);
}

TEST(DecodeObjects, ListItemsNeedAKind) {
  Error e = objects_error(R"({"kind": "List", "items": [{"metadata": {"name": "a"}}]})");
  EXPECT_EQ(e.path, "$.items[0].kind");
  EXPECT_EQ(e.message, "an item of a v1 List needs a kind");
  e = objects_error(R"({"kind": "List", "items": [5]})");
  EXPECT_EQ(e.path, "$.items[0]");
  EXPECT_EQ(e.message, "expected an object, got an integer");
  e = objects_error(R"({"kind": "List", "items": {}})");
  EXPECT_EQ(e.path, "$.items");
}

TEST(DecodeObjects, TypedListsImplyTheKind) {
  ClusterObjects out = objects(R"({"kind": "NodeList", "items": [{"metadata": {"name": "a"}},
                                                                  {"metadata": {"name": "b"}}]})");
  EXPECT_EQ(out.nodes.size(), 2u);
  EXPECT_TRUE(out.pods.empty());
  out = objects(R"({"kind": "PodList", "items": [{"metadata": {"name": "p"}}]})");
  EXPECT_TRUE(out.nodes.empty());
  ASSERT_EQ(out.pods.size(), 1u);
  EXPECT_EQ(out.pods[0].name, "p");
}

TEST(DecodeObjects, SingleObjectsAndTheNodesPodsShape) {
  ClusterObjects out = objects(R"({"kind": "Node", "metadata": {"name": "a"}})");
  EXPECT_EQ(out.nodes.size(), 1u);
  out = objects(R"({"kind": "Pod", "metadata": {"name": "p"}})");
  EXPECT_EQ(out.pods.size(), 1u);
  out =
      objects(R"({"nodes": [{"metadata": {"name": "a"}}], "pods": [{"metadata": {"name": "p"}}]})");
  EXPECT_EQ(out.nodes.size(), 1u);
  EXPECT_EQ(out.pods.size(), 1u);
  // Decoding appends: the caller may merge several documents.
  auto s =
      decode_objects(json_of(R"({"kind": "Node", "metadata": {"name": "b"}})"), JsonPath(), out);
  ASSERT_TRUE(s);
  EXPECT_EQ(out.nodes.size(), 2u);
}

TEST(DecodeObjects, EmptyLists) {
  ClusterObjects out = objects(R"({"kind": "List", "items": []})");
  EXPECT_TRUE(out.nodes.empty());
  EXPECT_TRUE(out.pods.empty());
  out = objects(R"({"kind": "NodeList", "items": null})");
  EXPECT_TRUE(out.nodes.empty());
  out = objects(R"({"kind": "PodList"})");
  EXPECT_TRUE(out.pods.empty());
  out = objects(R"({"nodes": [], "pods": []})");
  EXPECT_TRUE(out.nodes.empty());
}

// The scheduler's /snapshot writes pods that differ only by name, namespace,
// node and owner name once (docs/scheduler.md); every reader sees the pods.
TEST(DecodeObjects, PodGroupsAreThePodsTheyHold) {
  ClusterObjects grouped = objects(R"({"kind": "List", "items": [
    {"apiVersion": "tightpack.io/v1", "kind": "PodGroup",
     "template": {"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "ReplicaSet",
                                                    "uid": "", "controller": true}]},
                  "spec": {"priority": 5, "containers": [{"name": "c0",
                           "resources": {"requests": {"cpu": "1500m"}}}],
                           "tolerations": [{"key": "dask", "operator": "Exists"}]},
                  "status": {"phase": "Running"}},
     "pods": [["pod-a", "ns-1", "node-1", "owner-x"], ["pod-b", "ns-2", "", "owner-y"]]},
    {"apiVersion": "tightpack.io/v1", "kind": "PodGroup",
     "template": {"spec": {"containers": [{"name": "c0"}]}},
     "pods": [["pod-c", "ns-1", "node-2"]]}]})");
  ClusterObjects expanded = objects(R"({"kind": "List", "items": [
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "pod-a", "namespace": "ns-1", "ownerReferences": [{"apiVersion": "v1",
                  "kind": "ReplicaSet", "name": "owner-x", "uid": "", "controller": true}]},
     "spec": {"nodeName": "node-1", "priority": 5, "containers": [{"name": "c0",
              "resources": {"requests": {"cpu": "1500m"}}}],
              "tolerations": [{"key": "dask", "operator": "Exists"}]},
     "status": {"phase": "Running"}},
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "pod-b", "namespace": "ns-2", "ownerReferences": [{"apiVersion": "v1",
                  "kind": "ReplicaSet", "name": "owner-y", "uid": "", "controller": true}]},
     "spec": {"priority": 5, "containers": [{"name": "c0",
              "resources": {"requests": {"cpu": "1500m"}}}],
              "tolerations": [{"key": "dask", "operator": "Exists"}]},
     "status": {"phase": "Running"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod-c", "namespace": "ns-1"},
     "spec": {"nodeName": "node-2", "containers": [{"name": "c0"}]}}]})");
  ASSERT_EQ(grouped.pods.size(), 3u);
  EXPECT_EQ(grouped.pods, expanded.pods);
  EXPECT_EQ(grouped.pods[1].controller->name, "owner-y");
}

TEST(DecodeObjects, PodGroupMistakesNameTheMember) {
  const char* head =
      R"({"kind": "List", "items": [{"apiVersion": "tightpack.io/v1", "kind": "PodGroup", )";
  Error e = objects_error(std::string(head) +
                          R"("template": {"spec": {}}, "pods": [["a", "b", "n"], ["a", "b"]]}]})");
  EXPECT_EQ(e.path, "$.items[0].pods[1]");
  EXPECT_TRUE(contains(e.message, "[name, namespace, nodeName]")) << e.message;
  e = objects_error(std::string(head) + R"("template": {"spec": {}}, "pods": [["a", 7, "n"]]}]})");
  EXPECT_EQ(e.path, "$.items[0].pods[0][1]");
  e = objects_error(std::string(head) + R"("pods": []}]})");
  EXPECT_EQ(e.path, "$.items[0].template");
  // A member's own mistake is named at the member.
  e = objects_error(std::string(head) +
                    R"("template": {"spec": {"priority": "high"}}, "pods": [["a", "b", "n"]]}]})");
  EXPECT_EQ(e.path.rfind("$.items[0].pods[0]", 0), 0u) << e.path;
  // Another apiVersion's PodGroup is not ours: skipped as any unknown kind.
  ClusterObjects other = objects(
      R"({"kind": "List", "items": [{"apiVersion": "example.com/v1", "kind": "PodGroup"}]})");
  EXPECT_TRUE(other.pods.empty());
}

TEST(DecodeObjects, UnknownShapes) {
  Error e = objects_error(R"({"kind": "Deployment"})");
  EXPECT_EQ(e.path, "$.kind");
  EXPECT_TRUE(contains(e.message, "\"Deployment\"")) << e.message;
  e = objects_error(R"({"apiVersion": "v1"})");
  EXPECT_EQ(e.path, "$");
  EXPECT_TRUE(contains(e.message, "expected a Kubernetes List")) << e.message;
  e = objects_error(R"("Node")");
  EXPECT_EQ(e.path, "$");
  EXPECT_EQ(e.message, "expected an object, got a string");
}

TEST(DecodeObjects, UnknownFieldsAreIgnored) {
  ClusterObjects out = objects(R"({"kind": "List", "future": {"x": [1, 2]}, "items": [
      {"kind": "Node", "metadata": {"name": "a", "managedFields": [{}], "newThing": 1},
       "spec": {"providerID": "x", "configSource": {}},
       "status": {"allocatable": {"cpu": "1"}, "nodeInfo": {"kernelVersion": "6"}, "daemonEndpoints": 5}}]})");
  ASSERT_EQ(out.nodes.size(), 1u);
  EXPECT_EQ(out.nodes[0].allocatable, resources({{"cpu", 1000}}));
}

TEST(ResourceAmount, UnitsPerResource) {
  EXPECT_EQ(*resource_amount("cpu", json_of(R"("250m")")), 250);
  EXPECT_EQ(*resource_amount("cpu", json_of("2")), 2000);
  EXPECT_EQ(*resource_amount("memory", json_of(R"("1Gi")")), kGi);
  EXPECT_EQ(*resource_amount("memory", json_of(R"("1500m")")), 2);  // bytes round up
  EXPECT_EQ(*resource_amount("nvidia.com/gpu", json_of(R"("3")")), 3);
  auto null = resource_amount("cpu", json_of("null"));
  ASSERT_FALSE(null);
  EXPECT_EQ(null.error().message, "expected a quantity, got null");
  // Beyond int64, what kube-scheduler counts (Quantity.MilliValue): 10E is
  // int64Amount{10, 18}, whose scaling overflows to 0.
  EXPECT_EQ(*resource_amount("cpu", json_of(R"("10E")")), 0);
  EXPECT_EQ(*resource_amount("memory", json_of(R"("1e30")")), 0);
  EXPECT_EQ(*resource_amount("memory", json_of(R"("9Ei")")), INT64_MAX);
  auto negative = resource_amount("memory", json_of(R"("-1Gi")"));
  ASSERT_FALSE(negative);
  EXPECT_TRUE(contains(negative.error().message, "must not be negative"))
      << negative.error().message;
}

TEST(ParseJson, TruncatedInputNamesLineAndColumn) {
  auto v = parse_json(R"({"a": [1, 2)");
  ASSERT_FALSE(v);
  EXPECT_TRUE(contains(v.error().message, "invalid JSON at line 1 column 12")) << v.error().message;

  v = parse_json("{\n  \"nodes\": [\n    {\"metadata\": }\n  ]\n}");
  ASSERT_FALSE(v);
  EXPECT_TRUE(contains(v.error().message, "invalid JSON at line 3 column 18")) << v.error().message;

  v = parse_json("");
  ASSERT_FALSE(v);
  EXPECT_TRUE(contains(v.error().message, "invalid JSON at empty input")) << v.error().message;

  v = parse_json("{} {}");
  ASSERT_FALSE(v);
  EXPECT_TRUE(contains(v.error().message, "invalid JSON at line 1 column 4")) << v.error().message;
}

TEST(ParseJson, NestingDepthIsLimited) {
  std::string ok = std::string(100, '[') + std::string(100, ']');
  EXPECT_TRUE(parse_json(ok));
  std::string deep = std::string(129, '[') + std::string(129, ']');
  auto v = parse_json(deep);
  ASSERT_FALSE(v);
  EXPECT_TRUE(contains(v.error().message, "invalid JSON at line 1 column")) << v.error().message;
  std::string very_deep(1000000, '[');
  EXPECT_FALSE(parse_json(very_deep));
  // A deeply nested value in an ignored field still only costs the depth check.
  std::string nested =
      R"({"metadata": {"name": "n", "x": )" + std::string(120, '[') + std::string(120, ']') + "}}";
  auto n = decode_node(json_of(nested), JsonPath());
  EXPECT_TRUE(n) << n.error().what();
}

TEST(DecodeNode, TenMegabyteStrings) {
  const std::string big(10 * 1024 * 1024, 'a');
  auto start = std::chrono::steady_clock::now();

  // A long name is just a name.
  auto n = decode_node(json_of(R"({"metadata": {"name": ")" + big + R"("}})"), JsonPath());
  ASSERT_TRUE(n);
  EXPECT_EQ(n->name.size(), big.size());

  // A long quantity is an error whose message stays short.
  Error e = node_error(R"({"metadata": {"name": "n"}, "status": {"capacity": {"cpu": ")" + big +
                       R"("}}})");
  EXPECT_EQ(e.path, "$.status.capacity.cpu");
  EXPECT_LT(e.message.size(), 300u);
  EXPECT_TRUE(contains(e.message, "bytes)")) << e.message;

  // Ten million digits are an inf.Dec: counted, quickly, as its low 64 bits.
  std::string digits(10 * 1024 * 1024, '7');
  auto huge =
      decode_node(json_of(R"({"metadata": {"name": "n"}, "status": {"capacity": {"memory": ")" +
                          digits + R"("}}})"),
                  JsonPath());
  ASSERT_TRUE(huge) << huge.error().what().substr(0, 200);

  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count(), 20);
}

TEST(QuoteValue, ShortensLongText) {
  EXPECT_EQ(quote_value("abc"), "\"abc\"");
  EXPECT_EQ(quote_value(""), "\"\"");
  std::string long_text(100, 'x');
  EXPECT_EQ(quote_value(long_text), "\"" + std::string(64, 'x') + "\"… (100 bytes)");
}

TEST(JsonPathTest, Rendering) {
  JsonPath root;
  EXPECT_EQ(root.str(), "$");
  JsonPath items = root.field("items");
  JsonPath item = items.index(3);
  JsonPath labels_path = item.field("labels");
  EXPECT_EQ(labels_path.field("app").str(), "$.items[3].labels.app");
  EXPECT_EQ(labels_path.field("app.kubernetes.io/name").str(),
            "$.items[3].labels[\"app.kubernetes.io/name\"]");
  EXPECT_EQ(labels_path.field("").str(), "$.items[3].labels[\"\"]");
  const JsonPath profile("profile");
  EXPECT_EQ(profile.field("x").str(), "profile.x");
}

}  // namespace
}  // namespace tightpack

namespace tightpack {
namespace {

TEST(DecodeObjects, WorkloadsAndServicesOfAList) {
  ClusterObjects out = objects(R"({"kind": "List", "items": [
      {"kind": "Namespace", "metadata": {"name": "dask", "labels": {"team": "a"}}},
      {"kind": "Service", "metadata": {"name": "sched", "namespace": "dask"},
       "spec": {"selector": {"dask.org/component": "scheduler"}}},
      {"kind": "Service", "metadata": {"name": "headless"}, "spec": {"clusterIP": "None"}},
      {"kind": "ReplicaSet", "metadata": {"name": "w-7c9b4", "namespace": "dask"},
       "spec": {"selector": {"matchLabels": {"dask.org/worker-name": "w"}}}},
      {"kind": "StatefulSet", "metadata": {"name": "user-placeholder", "namespace": "jhub"},
       "spec": {"selector": {"matchLabels": {"component": "user-placeholder"}}}},
      {"kind": "ReplicationController", "metadata": {"name": "rc"}, "spec": {"selector": {"app": "batch"}}},
      {"kind": "ConfigMap", "metadata": {"name": "ignored"}}]})");
  ASSERT_EQ(out.objects.namespaces.size(), 1u);
  // SetDefaults_Namespace adds the name label.
  EXPECT_EQ(out.objects.namespaces[0].labels,
            testing::labels({{"kubernetes.io/metadata.name", "dask"}, {"team", "a"}}));
  ASSERT_EQ(out.objects.services.size(), 2u);
  EXPECT_EQ(out.objects.services[0].ns, "dask");
  ASSERT_TRUE(out.objects.services[0].selector);
  EXPECT_FALSE(out.objects.services[1].selector);  // no selector: selects nothing
  EXPECT_EQ(out.objects.services[1].ns, "default");
  ASSERT_EQ(out.objects.replica_sets.size(), 1u);
  EXPECT_EQ(out.objects.replica_sets[0].selector->match_labels,
            testing::labels({{"dask.org/worker-name", "w"}}));
  EXPECT_EQ(out.objects.stateful_sets.size(), 1u);
  EXPECT_EQ(out.objects.replication_controllers.size(), 1u);
}

TEST(DecodePod, TheControllerAndSpreadConstraints) {
  Pod p = testing::pod_from_json(R"({"metadata": {"name": "w", "ownerReferences": [
      {"apiVersion": "apps/v1", "kind": "Deployment", "name": "not-the-controller"},
      {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "w-7c9b4", "uid": "u", "controller": true}]},
      "spec": {"topologySpreadConstraints": [{"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "DoNotSchedule", "minDomains": 3, "nodeTaintsPolicy": "Honor",
        "labelSelector": {"matchLabels": {"app": "w"}}, "matchLabelKeys": ["pod-template-hash"]}]}})");
  ASSERT_TRUE(p.controller);
  EXPECT_EQ(p.controller->kind, "ReplicaSet");
  EXPECT_EQ(p.controller->name, "w-7c9b4");
  ASSERT_EQ(p.topology_spread.size(), 1u);
  const TopologySpreadConstraint& c = p.topology_spread[0];
  EXPECT_EQ(c.max_skew, 2);
  EXPECT_EQ(c.min_domains, 3);
  EXPECT_EQ(c.node_taints_policy, "Honor");
  EXPECT_EQ(c.match_label_keys, std::vector<std::string>{"pod-template-hash"});
  auto bad = decode_pod(
      testing::json_of(R"({"metadata": {"name": "w"}, "spec": {"topologySpreadConstraints": [
      {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
      {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}})"),
      JsonPath());
  ASSERT_FALSE(bad);
  EXPECT_EQ(
      bad.error().what(),
      "$.spec.topologySpreadConstraints[1]: duplicate {zone, DoNotSchedule} (also at index 0)");
}

}  // namespace
}  // namespace tightpack
