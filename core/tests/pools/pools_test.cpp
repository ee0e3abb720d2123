#include "tightpack/pools/pools.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_util.hpp"
#include "tightpack/autoscaler/estimator.hpp"

namespace tightpack::pools {
namespace {

using testing::json_of;
using testing::kGi;
using testing::labels;
using testing::make_node;

Result<PoolsConfig> decode(std::string_view text) {
  return decode_pools_config(json_of(text), JsonPath());
}

// A NodePools document with `body` after apiVersion and kind.
std::string doc(std::string_view body) {
  std::string out = R"({"apiVersion":"tightpack.io/v1alpha1","kind":"NodePools")";
  if (!body.empty()) out += "," + std::string(body);
  return out + "}";
}

void expect_error(std::string_view body, std::string_view path, std::string_view fragment) {
  auto c = decode(doc(body));
  ASSERT_FALSE(c.ok()) << body;
  EXPECT_EQ(c.error().path, path) << c.error().what();
  EXPECT_NE(c.error().message.find(fragment), std::string::npos) << c.error().what();
}

TEST(PoolsConfig, EveryField) {
  auto c = decode(doc(R"(
    "inferPools": false,
    "expander": "priority,least-waste",
    "expanderPriorities": {"50": ["dask-.*", "gpu-.*"], "10": ".*"},
    "autoscaler": {"scaleDownUtilizationThreshold": 0.6, "scaleDownGpuUtilizationThreshold": "0.4",
                   "scaleDownUnneededTime": "5m", "skipNodesWithSystemPods": false,
                   "skipNodesWithLocalStorage": false, "skipNodesWithCustomControllerPods": false,
                   "expendablePodsPriorityCutoff": -20, "maxNodesTotal": 40,
                   "gpuLabel": "eks.amazonaws.com/accelerator"},
    "pools": [
      {"name": "dask-workers", "nodeLabels": {"k8s.dask.org/node-purpose": "worker"},
       "template": {"labels": {"k8s.dask.org/node-purpose": "worker"},
                    "taints": [{"key": "dask", "value": "worker", "effect": "NoSchedule"}],
                    "allocatable": {"cpu": "7910m", "memory": "58Gi", "pods": "110"},
                    "capacity": {"cpu": "8", "memory": "64Gi", "pods": "110"}},
       "templatePods": [{"metadata": {"name": "fluentbit", "namespace": "kube-system"},
                         "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}}],
       "minSize": 1, "maxSize": 20, "provisioningTime": "1h30m", "pricePerHour": 0.13,
       "preemptible": true},
      {"name": "gpu-a100",
       "template": {"metadata": {"name": "a100", "labels": {"gpu": "a100"}},
                    "status": {"allocatable": {"cpu": "11900m", "memory": "76Gi", "nvidia.com/gpu": "1"}}}}
    ])"));
  ASSERT_TRUE(c.ok()) << c.error().what();
  EXPECT_FALSE(c->infer);
  EXPECT_EQ(c->expanders, (std::vector<std::string>{"priority", "least-waste"}));
  ASSERT_EQ(c->priorities.size(), 2u);
  EXPECT_EQ(c->priorities[0].first, 50);
  EXPECT_EQ(c->priorities[0].second, (std::vector<std::string>{"dask-.*", "gpu-.*"}));
  EXPECT_EQ(c->priorities[1].first, 10);
  EXPECT_EQ(c->priorities[1].second, (std::vector<std::string>{".*"}));
  const autoscaler::Options& o = c->options;
  EXPECT_DOUBLE_EQ(o.scale_down_utilization_threshold, 0.6);
  EXPECT_DOUBLE_EQ(o.scale_down_gpu_utilization_threshold, 0.4);
  EXPECT_EQ(c->scale_down_unneeded_seconds, 300);
  EXPECT_FALSE(o.skip_nodes_with_system_pods);
  EXPECT_FALSE(o.skip_nodes_with_local_storage);
  EXPECT_FALSE(o.skip_nodes_with_custom_controller_pods);
  EXPECT_EQ(o.expendable_pods_priority_cutoff, -20);
  EXPECT_EQ(o.max_nodes_total, 40);
  EXPECT_EQ(o.gpu_label, "eks.amazonaws.com/accelerator");

  ASSERT_EQ(c->pools.size(), 2u);
  const NodePool& w = c->pools[0];
  EXPECT_EQ(w.name, "dask-workers");
  EXPECT_EQ(w.source, PoolSource::kConfigured);
  EXPECT_EQ(w.node_labels, labels({{"k8s.dask.org/node-purpose", "worker"}}));
  ASSERT_TRUE(w.template_node.has_value());
  EXPECT_EQ(w.template_node->name, "template-node-for-dask-workers");
  EXPECT_EQ(*find_resource(w.template_node->allocatable, "cpu"), 7910);
  EXPECT_EQ(*find_resource(w.template_node->capacity, "memory"), 64 * kGi);
  ASSERT_EQ(w.template_node->taints.size(), 1u);
  EXPECT_EQ(w.template_node->taints[0].key, "dask");
  EXPECT_EQ(w.template_node->taints[0].effect, "NoSchedule");
  ASSERT_EQ(w.template_pods.size(), 1u);
  EXPECT_EQ(w.template_pods[0].pod.key(), "kube-system/fluentbit");
  EXPECT_EQ(w.min_size, 1);
  EXPECT_EQ(w.max_size, 20);
  EXPECT_EQ(w.provisioning_seconds, 5400);
  EXPECT_EQ(w.price_per_hour, 0.13);
  EXPECT_TRUE(w.preemptible);

  const NodePool& g = c->pools[1];
  ASSERT_TRUE(g.template_node.has_value());
  EXPECT_EQ(g.template_node->name, "a100");
  EXPECT_EQ(g.template_node->labels, labels({{"gpu", "a100"}}));
  // Only allocatable given: it is the node's capacity too (least-waste divides by it).
  EXPECT_EQ(g.template_node->capacity, g.template_node->allocatable);
  EXPECT_EQ(g.min_size, 0);
  EXPECT_FALSE(g.max_size.has_value());
  EXPECT_EQ(g.provisioning_seconds, kDefaultGpuProvisioningSeconds);  // a GPU template
  EXPECT_FALSE(g.price_per_hour.has_value());
  EXPECT_FALSE(g.preemptible);
}

TEST(PoolsConfig, Defaults) {
  auto c = decode(doc(R"("pools": [{"name": "core"}])"));
  ASSERT_TRUE(c.ok()) << c.error().what();
  EXPECT_TRUE(c->infer);
  EXPECT_EQ(c->expanders, (std::vector<std::string>{"least-waste"}));
  EXPECT_TRUE(c->priorities.empty());
  EXPECT_DOUBLE_EQ(c->options.scale_down_utilization_threshold, 0.5);
  EXPECT_EQ(c->options.max_nodes_total, 0);
  EXPECT_EQ(c->scale_down_unneeded_seconds, 600);
  ASSERT_EQ(c->pools.size(), 1u);
  EXPECT_FALSE(c->pools[0].template_node.has_value());
  EXPECT_EQ(c->pools[0].min_size, 0);
  EXPECT_FALSE(c->pools[0].max_size.has_value());
  EXPECT_EQ(c->pools[0].provisioning_seconds, kDefaultProvisioningSeconds);
}

TEST(PoolsConfig, YamlFloatAsStringPrice) {
  // The CLI's YAML reader keeps 0.35 as the string "0.35".
  auto c = decode(doc(R"("pools": [{"name": "a", "pricePerHour": "0.35"}])"));
  ASSERT_TRUE(c.ok()) << c.error().what();
  EXPECT_DOUBLE_EQ(*c->pools[0].price_per_hour, 0.35);
  expect_error(R"("pools": [{"name": "a", "pricePerHour": "cheap"}])", "$.pools[0].pricePerHour",
               "\"cheap\"");
  expect_error(R"("pools": [{"name": "a", "pricePerHour": -1}])", "$.pools[0].pricePerHour",
               "pricePerHour -1 must not be negative");
  expect_error(R"("pools": [{"name": "a", "pricePerHour": true}])", "$.pools[0].pricePerHour",
               "expected a number, got a boolean");
}

TEST(PoolsConfig, UnknownFieldNamesItsPath) {
  expect_error(R"("pools": [{"name": "a", "maxsize": 3}])", "$.pools[0].maxsize",
               "unknown field \"maxsize\" (known: name, nodeLabels");
  expect_error(R"("expanders": "price")", "$.expanders", "unknown field \"expanders\"");
  expect_error(R"("autoscaler": {"scanInterval": "10s"})", "$.autoscaler.scanInterval",
               "unknown field \"scanInterval\"");
  expect_error(R"("pools": [{"name": "a", "template": {"labels": {}, "taint": []}}])",
               "$.pools[0].template.taint", "unknown field \"taint\"");
}

TEST(PoolsConfig, BadDuration) {
  expect_error(R"("pools": [{"name": "a", "provisioningTime": "10 minutes"}])",
               "$.pools[0].provisioningTime", "invalid duration \"10 minutes\"");
  expect_error(R"("pools": [{"name": "a", "provisioningTime": "10"}])",
               "$.pools[0].provisioningTime", "invalid duration \"10\": missing unit");
  expect_error(R"("pools": [{"name": "a", "provisioningTime": 600}])",
               "$.pools[0].provisioningTime",
               "expected a duration string such as \"10m\", got an integer");
  expect_error(R"("autoscaler": {"scaleDownUnneededTime": "3d"})",
               "$.autoscaler.scaleDownUnneededTime", "unknown unit \"d\"");
}

TEST(PoolsConfig, BadExpander) {
  expect_error(R"("expander": "least-waste,cheapest")", "$.expander",
               "unknown expander \"cheapest\" (least-waste, most-pods, priority, price, random)");
  expect_error(R"("expander": "priority")", "$.expanderPriorities",
               "the priority expander needs expanderPriorities");
  expect_error(R"("expander": "priority", "expanderPriorities": {"high": ["a"]})",
               "$.expanderPriorities.high", "a priority must be an integer, not \"high\"");
}

TEST(PoolsConfig, SizesAndThresholds) {
  expect_error(R"("pools": [{"name": "a", "minSize": 3, "maxSize": 2}])", "$.pools[0].maxSize",
               "maxSize 2 is not in [minSize, 10000]");
  expect_error(R"("pools": [{"name": "a", "minSize": -1}])", "$.pools[0].minSize",
               "minSize -1 is not in [0, 10000]");
  expect_error(R"("pools": [{"name": "a", "maxSize": 20000}])", "$.pools[0].maxSize",
               "maxSize 20000 is not in [minSize, 10000]");
  expect_error(R"("autoscaler": {"scaleDownUtilizationThreshold": 1.5})",
               "$.autoscaler.scaleDownUtilizationThreshold",
               "scaleDownUtilizationThreshold 1.5 is not in [0, 1]");
  expect_error(R"("autoscaler": {"maxNodesTotal": -3})", "$.autoscaler.maxNodesTotal",
               "maxNodesTotal -3 must not be negative");
}

TEST(PoolsConfig, DocumentIdentityAndNames) {
  auto wrong_kind = decode(R"({"apiVersion":"tightpack.io/v1alpha1","kind":"NodePool"})");
  ASSERT_FALSE(wrong_kind.ok());
  EXPECT_EQ(wrong_kind.error().path, "$.kind");
  EXPECT_NE(wrong_kind.error().message.find("got \"NodePool\""), std::string::npos);
  auto wrong_api = decode(R"({"apiVersion":"v1","kind":"NodePools"})");
  ASSERT_FALSE(wrong_api.ok());
  EXPECT_EQ(wrong_api.error().path, "$.apiVersion");
  EXPECT_NE(wrong_api.error().message.find("got \"v1\""), std::string::npos);
  expect_error(R"("pools": [{"name": "a"}, {"name": "a"}])", "$.pools[1].name",
               "pool \"a\" is named twice");
  expect_error(R"("pools": [{"minSize": 1}])", "$.pools[0].name", "a pool needs a name");
  expect_error(R"("pools": [{"name": "a", "template": {"allocatable": {"cpu": "lots"}}}])",
               "$.pools[0].template.allocatable.cpu", "\"lots\"");
}

TEST(PoolsDuration, GoDurationsInWholeSeconds) {
  EXPECT_EQ(*parse_duration("0"), 0);
  EXPECT_EQ(*parse_duration("90s"), 90);
  EXPECT_EQ(*parse_duration("10m"), 600);
  EXPECT_EQ(*parse_duration("1h30m"), 5400);
  EXPECT_EQ(*parse_duration("1.5h"), 5400);
  EXPECT_EQ(*parse_duration("2m30s"), 150);
  EXPECT_EQ(*parse_duration("1500ms"), 1);  // fractions round down
  for (std::string_view bad : {"", "10", "m", "10d", "1h 30m", "-5m"}) {
    auto d = parse_duration(bad);
    EXPECT_FALSE(d.ok()) << bad;
    if (!d.ok() && !bad.empty()) {
      EXPECT_NE(d.error().message.find("\"" + std::string(bad) + "\""), std::string::npos)
          << d.error().message;
    }
  }
}

Node labelled(std::string name, std::initializer_list<std::pair<const char*, const char*>> l) {
  Node n = make_node(std::move(name), 8000, 32 * kGi);
  n.labels = labels(l);
  return n;
}

TEST(PoolsLabels, LookedForInOrder) {
  auto found = pool_label(labelled("n", {{"node.kubernetes.io/instance-type", "n2-standard-8"},
                                         {"cloud.google.com/gke-nodepool", "workers"}}));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->first, "cloud.google.com/gke-nodepool");
  EXPECT_EQ(found->second, "workers");
  found = pool_label(labelled(
      "n", {{"karpenter.sh/nodepool", "default"}, {"eks.amazonaws.com/nodegroup", "ng-1"}}));
  EXPECT_EQ(found->first, "eks.amazonaws.com/nodegroup");
  found = pool_label(labelled(
      "n", {{"karpenter.sh/nodepool", "default"}, {"kubernetes.azure.com/agentpool", "userpool"}}));
  EXPECT_EQ(found->first, "kubernetes.azure.com/agentpool");
  found = pool_label(labelled("n", {{"karpenter.sh/nodepool", "default"},
                                    {"node.kubernetes.io/instance-type", "m5.large"}}));
  EXPECT_EQ(found->first, "karpenter.sh/nodepool");
  found = pool_label(labelled("n", {{"cloud.google.com/gke-nodepool", ""},
                                    {"node.kubernetes.io/instance-type", "m5.large"}}));
  EXPECT_EQ(found->second, "m5.large");  // an empty value names no pool
  EXPECT_FALSE(pool_label(labelled("n", {{"kubernetes.io/os", "linux"}})).has_value());
}

std::vector<Node> cluster_nodes() {
  Node gpu = labelled("gke-gpu-1", {{"cloud.google.com/gke-nodepool", "gpu-t4"}});
  set_resource(gpu.allocatable, "nvidia.com/gpu", 1);
  return {
      labelled("gke-core-1", {{"cloud.google.com/gke-nodepool", "core-pool"}}),
      labelled("gke-workers-1", {{"cloud.google.com/gke-nodepool", "dask-workers"},
                                 {"k8s.dask.org/node-purpose", "worker"}}),
      labelled("gke-workers-2", {{"cloud.google.com/gke-nodepool", "dask-workers"},
                                 {"k8s.dask.org/node-purpose", "worker"}}),
      gpu,
      labelled("eks-1", {{"eks.amazonaws.com/nodegroup", "ng-1"}}),
      labelled("bare-1", {{"kubernetes.io/os", "linux"}}),
  };
}

const NodePool* find_pool(const ResolvedPools& r, std::string_view name) {
  for (const NodePool& p : r.pools) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

TEST(PoolsResolve, ConfiguredClaimByNameAndNodeLabelsThenInferred) {
  auto c = decode(doc(R"("pools": [
      {"name": "workers", "nodeLabels": {"k8s.dask.org/node-purpose": "worker"}, "maxSize": 10},
      {"name": "core-pool", "maxSize": 3},
      {"name": "gpu-a100", "template": {"allocatable": {"cpu": "12", "nvidia.com/gpu": "1"}}},
      {"name": "tpu"}])"));
  ASSERT_TRUE(c.ok()) << c.error().what();
  ResolvedPools r = resolve_pools(*c, cluster_nodes());
  std::vector<std::string> names;
  for (const NodePool& p : r.pools) names.push_back(p.name);
  // Sorted by name; inferred pools carry the label's value.
  EXPECT_EQ(names, (std::vector<std::string>{"core-pool", "gpu-a100", "gpu-t4", "ng-1", "tpu",
                                             "workers"}));
  EXPECT_EQ(find_pool(r, "workers")->nodes,
            (std::vector<std::string>{"gke-workers-1", "gke-workers-2"}));
  EXPECT_EQ(find_pool(r, "core-pool")->nodes, (std::vector<std::string>{"gke-core-1"}));
  // Size 0, known only from configuration.
  EXPECT_TRUE(find_pool(r, "gpu-a100")->nodes.empty());
  EXPECT_TRUE(find_pool(r, "gpu-a100")->template_node.has_value());

  const NodePool* t4 = find_pool(r, "gpu-t4");
  EXPECT_EQ(t4->source, PoolSource::kInferred);
  EXPECT_EQ(t4->nodes, (std::vector<std::string>{"gke-gpu-1"}));
  EXPECT_EQ(t4->node_labels, labels({{"cloud.google.com/gke-nodepool", "gpu-t4"}}));
  EXPECT_FALSE(t4->max_size.has_value());
  EXPECT_EQ(t4->provisioning_seconds, kDefaultGpuProvisioningSeconds);
  EXPECT_EQ(find_pool(r, "ng-1")->provisioning_seconds, kDefaultProvisioningSeconds);
  EXPECT_EQ(find_pool(r, "core-pool")->provisioning_seconds, kDefaultProvisioningSeconds);

  ASSERT_EQ(r.notes.size(), 3u);
  EXPECT_EQ(r.notes[0],
            "pool tpu has no nodes and no template in the configuration: it cannot grow");
  EXPECT_EQ(r.notes[1],
            "pools inferred from node labels: gpu-t4 (1 node), ng-1 (1 node); their min and max "
            "sizes are unknown (min 0, no max assumed): name them in a NodePools document to say");
  EXPECT_EQ(r.notes[2],
            "1 node(s) carry no pool label and belong to no pool (not autoscaled), "
            "e.g. bare-1");
}

TEST(PoolsResolve, InferredPoolDoesNotTakeAConfiguredName) {
  // "gpu" claims by nodeLabels; a node labelled gke-nodepool=gpu it does not
  // claim is inferred under the label's full name.
  auto c = decode(doc(R"("pools": [{"name": "gpu", "nodeLabels": {"accelerator": "a100"}}])"));
  ASSERT_TRUE(c.ok());
  ResolvedPools r = resolve_pools(*c, {labelled("n1", {{"cloud.google.com/gke-nodepool", "gpu"}})});
  ASSERT_EQ(r.pools.size(), 2u);
  EXPECT_EQ(r.pools[0].name, "cloud.google.com/gke-nodepool=gpu");
  EXPECT_EQ(r.pools[0].nodes, (std::vector<std::string>{"n1"}));
  EXPECT_TRUE(r.pools[1].nodes.empty());
}

TEST(PoolsResolve, InferredPoolIsPreemptibleWhenItsNodesAreSpot) {
  PoolsConfig none;
  ResolvedPools r = resolve_pools(
      none,
      {labelled("a", {{"cloud.google.com/gke-nodepool", "spot"},
                      {"cloud.google.com/gke-preemptible", "true"}}),
       labelled("b", {{"eks.amazonaws.com/nodegroup", "ng"},
                      {"eks.amazonaws.com/capacityType", "ON_DEMAND"}}),
       labelled("c", {{"karpenter.sh/nodepool", "kp"}, {"karpenter.sh/capacity-type", "spot"}})});
  ASSERT_EQ(r.pools.size(), 3u);
  EXPECT_EQ(r.pools[0].name, "kp");
  EXPECT_TRUE(r.pools[0].preemptible);
  EXPECT_EQ(r.pools[1].name, "ng");
  EXPECT_FALSE(r.pools[1].preemptible);
  EXPECT_EQ(r.pools[2].name, "spot");
  EXPECT_TRUE(r.pools[2].preemptible);
}

TEST(PoolsResolve, KarpentersPoolsAreNamedAndTheAnswerSaysWhoseModelItIs) {
  // A mixed cluster: an EKS managed node group, a Karpenter NodePool with a
  // node, and a configured pool that selects another NodePool by its label.
  auto c = decode(doc(R"("pools": [{"name": "gpu", "nodeLabels": {"karpenter.sh/nodepool": "gpu"},
      "template": {"allocatable": {"cpu": "8", "nvidia.com/gpu": "1"}}}])"));
  ASSERT_TRUE(c.ok()) << c.error().what();
  ResolvedPools r =
      resolve_pools(*c, {labelled("a", {{"eks.amazonaws.com/nodegroup", "core"}}),
                         labelled("b", {{"karpenter.sh/nodepool", "default"},
                                        {"node.kubernetes.io/instance-type", "m5.2xlarge"}})});
  EXPECT_EQ(find_pool(r, "core")->autoscaler, PoolAutoscaler::kClusterAutoscaler);
  EXPECT_EQ(find_pool(r, "default")->autoscaler, PoolAutoscaler::kKarpenter);
  EXPECT_EQ(find_pool(r, "gpu")->autoscaler, PoolAutoscaler::kKarpenter);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_EQ(r.notes.back(),
            "Karpenter manages default, gpu (karpenter.sh/nodepool): tightpack does not model "
            "Karpenter yet, so the nodes added and removed here are cluster-autoscaler's answer, "
            "and Karpenter's may differ (it picks instance types per batch of pods and "
            "consolidates nodes)");
  // Without Karpenter's label nothing is said.
  ResolvedPools gke = resolve_pools(PoolsConfig{}, cluster_nodes());
  for (const std::string& note : gke.notes) EXPECT_EQ(note.find("Karpenter"), std::string::npos);
}

TEST(PoolsResolve, GpuDefaultProvisioningFromTheNodesOfAPoolWithoutTemplate) {
  auto c = decode(
      doc(R"("pools": [{"name": "gpu-t4"}, {"name": "core-pool", "provisioningTime": "5m"}])"));
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->pools[0].provisioning_time_given);
  EXPECT_TRUE(c->pools[1].provisioning_time_given);
  ResolvedPools r = resolve_pools(*c, cluster_nodes());
  EXPECT_EQ(find_pool(r, "gpu-t4")->provisioning_seconds, kDefaultGpuProvisioningSeconds);
  EXPECT_EQ(find_pool(r, "core-pool")->provisioning_seconds, 300);
}

TEST(PoolsResolve, InferenceOff) {
  auto c = decode(doc(R"("inferPools": false, "pools": [{"name": "core-pool"}])"));
  ASSERT_TRUE(c.ok());
  ResolvedPools r = resolve_pools(*c, cluster_nodes());
  ASSERT_EQ(r.pools.size(), 1u);
  EXPECT_EQ(r.pools[0].nodes, (std::vector<std::string>{"gke-core-1"}));
  EXPECT_TRUE(r.notes.empty());
}

constexpr std::string_view kSnapshot = R"({"apiVersion": "v1", "kind": "List", "items": [
  {"kind": "Node", "metadata": {"name": "n1", "labels": {"cloud.google.com/gke-nodepool": "workers"}},
   "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
              "conditions": [{"type": "Ready", "status": "False"}]}},
  {"kind": "Pod", "metadata": {"name": "web-1", "namespace": "app",
     "ownerReferences": [{"kind": "ReplicaSet", "name": "web-abc", "controller": true}]},
   "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}},
  {"kind": "Pod", "metadata": {"name": "fluentbit-x", "namespace": "kube-system",
     "ownerReferences": [{"kind": "DaemonSet", "name": "fluentbit", "controller": true}]},
   "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}},
  {"kind": "Pod", "metadata": {"name": "waiting", "namespace": "app"},
   "spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Pending"}},
  {"kind": "Pod", "metadata": {"name": "done", "namespace": "app"},
   "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}, "status": {"phase": "Succeeded"}},
  {"kind": "DaemonSet", "apiVersion": "apps/v1", "metadata": {"name": "fluentbit", "namespace": "kube-system"},
   "spec": {"template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}}}},
  {"kind": "ReplicaSet", "apiVersion": "apps/v1", "metadata": {"name": "web-abc", "namespace": "app"}},
  {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1", "metadata": {"name": "web", "namespace": "app"},
   "spec": {"selector": {"matchLabels": {"app": "web"}}}, "status": {"disruptionsAllowed": 1}},
  {"kind": "Service", "apiVersion": "v1", "metadata": {"name": "ignored"}}
]})";

TEST(PoolsSnapshot, ListWithControllersBudgetsAndPendingPods) {
  auto s = decode_cluster_snapshot(json_of(kSnapshot), JsonPath());
  ASSERT_TRUE(s.ok()) << s.error().what();
  ASSERT_EQ(s->nodes.size(), 1u);
  EXPECT_FALSE(s->nodes[0].ready);
  ASSERT_EQ(s->pods.size(), 2u);  // the finished pod is dropped
  EXPECT_EQ(s->pods[0].controller_kind, "ReplicaSet");
  EXPECT_TRUE(s->pods[1].daemon_set);
  ASSERT_EQ(s->pending.size(), 1u);
  EXPECT_EQ(s->pending[0].pod.key(), "app/waiting");
  ASSERT_EQ(s->daemon_sets.size(), 1u);
  EXPECT_EQ(s->daemon_sets[0].name, "fluentbit");
  EXPECT_EQ(s->controllers,
            (std::set<std::string>{"DaemonSet/kube-system/fluentbit", "ReplicaSet/app/web-abc"}));
  EXPECT_EQ(s->listed_kinds, (std::set<std::string>{"DaemonSet", "ReplicaSet"}));
  ASSERT_EQ(s->pdbs.size(), 1u);
  EXPECT_EQ(s->pdbs[0].disruptions_allowed, 1);
}

TEST(PoolsSnapshot, NodesAndPodsObjectAndErrors) {
  auto s = decode_cluster_snapshot(
      json_of(R"({"nodes": [{"metadata": {"name": "n"}}], "pods": [{"metadata": {"name": "p"},
                  "spec": {"containers": [{"name": "c"}]}}]})"),
      JsonPath());
  ASSERT_TRUE(s.ok()) << s.error().what();
  EXPECT_EQ(s->nodes.size(), 1u);
  EXPECT_EQ(s->pending.size(), 1u);

  auto wrong = decode_cluster_snapshot(json_of(R"({"kind": "Service", "metadata": {"name": "x"}})"),
                                       JsonPath());
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().path, "$.kind");
  EXPECT_NE(wrong.error().message.find("\"Service\""), std::string::npos);

  auto bad = decode_cluster_snapshot(
      json_of(R"({"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n"},
                  "status": {"allocatable": {"memory": "12Qi"}}}]})"),
      JsonPath());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().path, "$.items[0].status.allocatable.memory");
  EXPECT_NE(bad.error().message.find("\"12Qi\""), std::string::npos);
}

TEST(PoolsScenario, OneGroupPerPoolThatCanGrowWithPrices) {
  auto snap = decode_cluster_snapshot(json_of(kSnapshot), JsonPath());
  ASSERT_TRUE(snap.ok());
  auto c = decode(doc(R"("expander": "price", "pools": [
      {"name": "big", "maxSize": 5, "pricePerHour": 2.5,
       "template": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}},
      {"name": "nothing"}])"));
  ASSERT_TRUE(c.ok()) << c.error().what();
  std::vector<Node> nodes;
  for (const auto& n : snap->nodes) nodes.push_back(n.node);
  ResolvedPools r = resolve_pools(*c, nodes);
  autoscaler::AutoscaleScenario s = autoscale_scenario(*snap, r, *c);
  ASSERT_EQ(s.groups.size(), 2u);  // "nothing" has no node and no template
  EXPECT_EQ(s.groups[0].name, "big");
  EXPECT_EQ(s.groups[0].max_size, 5);
  EXPECT_TRUE(s.groups[0].nodes.empty());
  EXPECT_EQ(s.groups[1].name, "workers");  // inferred: current size + the per-scale-up limit
  EXPECT_EQ(s.groups[1].max_size, 1 + autoscaler::kMaxNodesPerScaleUp);
  EXPECT_EQ(s.prices, (std::map<std::string, double>{{"big", 2.5}}));
  EXPECT_EQ(s.expanders, (std::vector<std::string>{"price"}));
  EXPECT_TRUE(s.pending.empty());
  EXPECT_FALSE(s.scale_down);
  EXPECT_EQ(s.pods.size(), 2u);
}

}  // namespace
}  // namespace tightpack::pools
