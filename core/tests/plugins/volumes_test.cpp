// The storage objects' decoders and the four volume plugins, on small
// clusters whose answers were read against kube-scheduler v1.37.2's sources
// (and, for the scenarios of tests/conformance/generate/examples/volumes,
// against kube-scheduler-reference).
#include <gtest/gtest.h>

#include "test_util.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/plugins/node_volume_limits.hpp"
#include "tightpack/plugins/volume_restrictions.hpp"
#include "tightpack/replay.hpp"
#include "tightpack/simulate.hpp"

namespace tightpack {
namespace {

using testing::json_of;
using testing::kGi;
using testing::labels;
using testing::make_node;
using testing::make_pod;

// VolumeBinding's raw score of a node, from the plan's CycleState.
int64_t binding_score(const PodPlan& plan, const Cluster& c, NodeIndex n) {
  return plugins::VolumeBindingPlugin::score(plan.state<Plugin::VolumeBinding>(), c, n);
}

const Profile kDefault = default_profile();

Node zoned(const char* name, const char* zone) {
  Node n = make_node(name, 4000, 16 * kGi);
  n.labels = labels({{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}});
  return n;
}

template <class T, class Decode>
T decoded(Decode&& decode, std::string_view text) {
  const JsonPath root;
  auto r = decode(json_of(text), root.field("x"));
  EXPECT_TRUE(r) << r.error().what();
  return r ? std::move(*r) : T{};
}

std::string decode_error(std::string_view kind, std::string_view text) {
  ApiObjects out;
  bool known = false;
  const JsonPath root;
  auto st = decode_api_object(kind, json_of(text), root.field("x"), out, known);
  EXPECT_TRUE(known);
  return st ? std::string("ok") : st.error().what();
}

PodVolume claim_volume(const char* claim) {
  return PodVolume{"home", PodVolume::Source::kClaim, claim};
}

Pod notebook(const char* name, const char* claim) {
  Pod p = make_pod(name);
  p.ns = "jhub";
  p.volumes.push_back(claim_volume(claim));
  return p;
}

PersistentVolumeClaim claim(const char* name, const char* class_name, const char* volume = "") {
  PersistentVolumeClaim c;
  c.ns = "jhub";
  c.name = name;
  c.uid = std::string("uid-") + name;
  c.class_name = class_name;
  c.volume_name = volume;
  c.bind_completed = *volume != 0;
  c.access_modes = kReadWriteOnce;
  c.request = 10 * kGi;
  return c;
}

PersistentVolume zonal_volume(const char* name, const char* zone, int64_t capacity) {
  PersistentVolume pv;
  pv.name = name;
  pv.class_name = "standard-rwo";
  pv.capacity = capacity;
  pv.access_modes = kReadWriteOnce;
  pv.phase = "Available";
  pv.node_affinity = std::vector<NodeSelectorTerm>{
      NodeSelectorTerm{{NodeSelectorRequirement{"topology.kubernetes.io/zone", "In", {zone}}}, {}}};
  pv.csi_driver = "pd.csi.storage.gke.io";
  pv.csi_handle = name;
  return pv;
}

StorageClass wffc(const char* name = "standard-rwo") {
  return StorageClass{name, "pd.csi.storage.gke.io", true, {}};
}

Cluster cluster(std::vector<Node> nodes, const std::vector<Pod>& pods, ApiObjects objects) {
  objects.storage_listed = true;
  auto c = Cluster::build(std::move(nodes), pods, std::move(objects));
  EXPECT_TRUE(c) << c.error().what();
  return std::move(*c);
}

// Every node's verdict: "ok" or its reasons joined.
std::map<std::string, std::string> verdicts(const Cluster& c, const Pod& pod,
                                            Decision* out = nullptr) {
  auto plan = PodPlan::make(c, kDefault, pod);
  PlanScratch scratch;
  EXPECT_TRUE(plan) << plan.error().what();
  std::map<std::string, std::string> v;
  if (!plan) return v;
  Decision d = decide(*plan, c, scratch);
  for (size_t j = 0; j < d.filtered.size(); ++j) {
    std::string r;
    for (const auto& reason : plan->reasons(c, d.filtered[j], d.statuses[j]))
      r += (r.empty() ? "" : "; ") + reason;
    v[c.name(d.filtered[j])] = d.statuses[j].ok() ? "ok" : r;
  }
  if (out) *out = d;
  return v;
}

TEST(DecodeStorage, ClaimAsTheApiServerStoresIt) {
  auto c = decoded<PersistentVolumeClaim>(decode_persistent_volume_claim, R"({
      "metadata": {"name": "claim-alice", "namespace": "jhub", "uid": "u1",
                   "annotations": {"pv.kubernetes.io/bind-completed": "yes",
                                   "volume.kubernetes.io/selected-node": "node-a"}},
      "spec": {"accessModes": ["ReadWriteOnce", "ReadWriteOncePod"], "storageClassName": "standard-rwo",
               "volumeName": "pvc-1", "resources": {"requests": {"storage": "10Gi"}}},
      "status": {"phase": "Bound"}})");
  EXPECT_EQ(c.key(), "jhub/claim-alice");
  EXPECT_EQ(c.class_name, "standard-rwo");
  EXPECT_TRUE(c.bind_completed);
  EXPECT_EQ(c.selected_node, std::optional<std::string>("node-a"));
  EXPECT_EQ(c.access_modes, kReadWriteOnce | kReadWriteOncePod);
  EXPECT_EQ(c.request, std::optional<int64_t>(10 * kGi));
  EXPECT_FALSE(c.lost);
  // The beta annotation wins over spec.storageClassName, as GetPersistentVolumeClaimClass reads
  // them.
  auto beta = decoded<PersistentVolumeClaim>(decode_persistent_volume_claim, R"({
      "metadata": {"name": "c", "annotations": {"volume.beta.kubernetes.io/storage-class": "old"}},
      "spec": {"storageClassName": "new"}})");
  EXPECT_EQ(beta.class_name, "old");
  EXPECT_EQ(beta.ns, "default");
}

TEST(DecodeStorage, ClassesDefaultToImmediate) {
  auto sc = decoded<StorageClass>(decode_storage_class,
                                  R"({"metadata": {"name": "s"}, "provisioner": "p"})");
  EXPECT_FALSE(sc.wait_for_first_consumer);
  sc =
      decoded<StorageClass>(decode_storage_class, R"({"metadata": {"name": "s"}, "provisioner": "p",
      "volumeBindingMode": "WaitForFirstConsumer",
      "allowedTopologies": [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["a", "b"]}]}]})");
  EXPECT_TRUE(sc.wait_for_first_consumer);
  ASSERT_EQ(sc.allowed_topologies.size(), 1u);
  EXPECT_TRUE(
      topology_matches(sc.allowed_topologies, labels({{"topology.kubernetes.io/zone", "b"}})));
  EXPECT_FALSE(
      topology_matches(sc.allowed_topologies, labels({{"topology.kubernetes.io/zone", "c"}})));
}

TEST(DecodeStorage, BadInputNamesTheObjectAndField) {
  EXPECT_EQ(
      decode_error(
          "PersistentVolumeClaim",
          R"({"metadata": {"name": "c"}, "spec": {"resources": {"requests": {"storage": "ten"}}}})"),
      "$.x.spec.resources.requests.storage: " +
          resource_amount("storage", json_of(R"("ten")")).error().message);
  EXPECT_EQ(decode_error("PersistentVolume",
                         R"({"metadata": {"name": "v"}, "spec": {"nodeAffinity": {"required":
      {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Near", "values": ["a"]}]}]}}}})"),
            "$.x.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator: "
            "operator \"Near\" is "
            "not one of In, NotIn, Exists, DoesNotExist, Gt, Lt");
  EXPECT_EQ(decode_error("CSINode", R"({"metadata": {"name": "n"}, "spec": {"drivers": [
      {"name": "d", "nodeID": "n", "allocatable": {"count": -1}}]}})"),
            "$.x.spec.drivers[0].allocatable.count: count -1 must be greater than or equal to 0");
  EXPECT_EQ(decode_error("PersistentVolumeClaim",
                         R"({"metadata": {"name": "c"}, "spec": {"accessModes": ["RWO"]}})"),
            "$.x.spec.accessModes[0]: unsupported access mode \"RWO\" (ReadWriteOnce, "
            "ReadOnlyMany, ReadWriteMany, "
            "ReadWriteOncePod)");
  EXPECT_EQ(decode_error(
                "StorageClass",
                R"({"metadata": {"name": "s"}, "provisioner": "p", "volumeBindingMode": "Later"})"),
            "$.x.volumeBindingMode: unsupported binding mode \"Later\" (Immediate, "
            "WaitForFirstConsumer)");
  EXPECT_NE(
      decode_error("PersistentVolumeClaim", R"({"metadata": {"name": "c"}, "spec": {"selector":
      {"matchExpressions": [{"key": "a", "operator": "Near"}]}}})"),
      "ok");
}

TEST(VolumeBinding, BoundClaimFollowsItsVolumesZone) {
  ApiObjects o;
  o.claims = {claim("claim-alice", "standard-rwo", "pvc-1")};
  o.volumes = {zonal_volume("pvc-1", "b", 10 * kGi)};
  o.volumes[0].phase = "Bound";
  o.volumes[0].claim_ref = ClaimReference{"jhub", "claim-alice", "uid-claim-alice"};
  o.storage_classes = {wffc()};
  Cluster c = cluster({zoned("node-a", "a"), zoned("node-b", "b")}, {}, o);
  EXPECT_EQ(verdicts(c, notebook("jupyter-alice", "claim-alice")),
            (std::map<std::string, std::string>{{"node-a", plugins::kVolumeNodeConflictReason},
                                                {"node-b", "ok"}}));
}

TEST(VolumeBinding, PreFiltersRejectEveryNodeWithTheirMessage) {
  ApiObjects o;
  o.storage_classes = {StorageClass{"immediate", "pd.csi.storage.gke.io", false, {}}};
  o.claims = {claim("unbound", "immediate")};
  Cluster c = cluster({zoned("node-a", "a")}, {}, o);
  Decision d;
  // A missing claim: VolumeRestrictions' PreFilter runs first.
  EXPECT_EQ(
      verdicts(c, notebook("p", "nope"), &d),
      (std::map<std::string, std::string>{{"node-a", "persistentvolumeclaim \"nope\" not found"}}));
  EXPECT_EQ(d.statuses[0].plugin, Plugin::VolumeRestrictions);
  EXPECT_EQ(d.message,
            "0/1 nodes are available: persistentvolumeclaim \"nope\" not found. preemption: 0/1 "
            "nodes are available: "
            "1 Preemption is not helpful for scheduling.");
  EXPECT_EQ(verdicts(c, notebook("p", "unbound"), &d),
            (std::map<std::string, std::string>{{"node-a", plugins::kUnboundImmediateReason}}));
  EXPECT_EQ(d.statuses[0].plugin, Plugin::VolumeBinding);
}

TEST(VolumeBinding, StaticVolumesAreMatchedSmallestFirstAndAssumed) {
  ApiObjects o;
  o.storage_classes = {wffc()};
  o.claims = {claim("claim-alice", "standard-rwo"), claim("claim-bob", "standard-rwo")};
  o.volumes = {zonal_volume("pv-a", "a", 20 * kGi), zonal_volume("pv-b", "b", 50 * kGi),
               zonal_volume("pv-small", "a", 5 * kGi)};
  Cluster c = cluster({zoned("node-a", "a"), zoned("node-b", "b"), zoned("node-c", "c")}, {}, o);
  // Every node fits (node-c provisions); the score prefers the roomier volume.
  auto plan = PodPlan::make(c, kDefault, notebook("alice", "claim-alice"));
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_EQ(binding_score(*plan, c, c.find("node-a")), 50);
  EXPECT_EQ(binding_score(*plan, c, c.find("node-b")), 80);
  EXPECT_EQ(binding_score(*plan, c, c.find("node-c")), 0);
  // Placing alice on node-b assumes pv-b for her claim: bob no longer gets it.
  c.place(c.find("node-b"), plan->bound("jhub/alice"));
  auto bob = PodPlan::make(c, kDefault, notebook("bob", "claim-bob"));
  ASSERT_TRUE(bob);
  EXPECT_EQ(binding_score(*bob, c, c.find("node-a")), 50);
  EXPECT_EQ(binding_score(*bob, c, c.find("node-b")), 0);
}

TEST(VolumeBinding, ASharedDelayedClaimFollowsItsFirstPod) {
  ApiObjects o;
  o.storage_classes = {wffc()};
  o.claims = {claim("shared", "standard-rwo")};
  Cluster c = cluster({zoned("node-a", "a"), zoned("node-b", "b")}, {}, o);
  auto r = simulate_replicas(c, kDefault, notebook("w", "shared"), 3);
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_EQ(r->replicas.size(), 3u);
  ASSERT_TRUE(r->replicas[0].node);
  for (const auto& p : r->replicas) EXPECT_EQ(p.node, r->replicas[0].node) << p.pod;
  EXPECT_EQ(c.storage().claim("jhub", "shared")->selected_node,
            std::optional<std::string>(c.name(*r->replicas[0].node)));
}

TEST(VolumeZone, ZoneLabelsOfTheBoundVolume) {
  ApiObjects o;
  o.storage_classes = {wffc()};
  o.claims = {claim("home", "standard-rwo", "pv-1")};
  PersistentVolume pv = zonal_volume("pv-1", "a", 10 * kGi);
  pv.node_affinity.reset();
  pv.labels = labels({{"topology.kubernetes.io/zone", "a__b"}});
  o.volumes = {pv};
  Node zoneless = make_node("node-d", 4000, 16 * kGi);
  Cluster c =
      cluster({zoned("node-a", "a"), zoned("node-b", "b"), zoned("node-c", "c"), zoneless}, {}, o);
  EXPECT_EQ(verdicts(c, notebook("p", "home")),
            (std::map<std::string, std::string>{{"node-a", "ok"},
                                                {"node-b", "ok"},
                                                {"node-c", plugins::kVolumeZoneReason},
                                                {"node-d", "ok"}}));
}

TEST(VolumeRestrictions, AReadWriteOncePodClaimInUseRejectsEveryNode) {
  ApiObjects o;
  o.storage_classes = {wffc()};
  PersistentVolumeClaim rwop = claim("solo", "standard-rwo", "pv-1");
  rwop.access_modes = kReadWriteOncePod;
  o.claims = {rwop};
  PersistentVolume pv = zonal_volume("pv-1", "a", 10 * kGi);
  pv.node_affinity.reset();
  o.volumes = {pv};
  Pod holder = notebook("holder", "solo");
  holder.node_name = "node-a";
  Cluster c = cluster({zoned("node-a", "a"), zoned("node-b", "b")}, {holder}, o);
  EXPECT_EQ(c.claim_users("jhub/solo"), 1);
  Decision d;
  EXPECT_EQ(verdicts(c, notebook("p", "solo"), &d),
            (std::map<std::string, std::string>{{"node-a", plugins::kReadWriteOncePodReason},
                                                {"node-b", plugins::kReadWriteOncePodReason}}));
  EXPECT_EQ(d.statuses[0].code, Code::Unschedulable);
}

TEST(VolumeRestrictions, TwoPodsMayNotWriteOneInlineDisk) {
  Pod holder = make_pod("holder");
  holder.node_name = "node-a";
  holder.volumes.push_back(PodVolume{"d", PodVolume::Source::kGcePersistentDisk, "", "disk-1"});
  Cluster c = cluster({zoned("node-a", "a"), zoned("node-b", "b")}, {holder}, {});
  Pod p = make_pod("p");
  p.volumes.push_back(PodVolume{"d", PodVolume::Source::kGcePersistentDisk, "", "disk-1"});
  EXPECT_EQ(verdicts(c, p), (std::map<std::string, std::string>{
                                {"node-a", plugins::kDiskConflictReason}, {"node-b", "ok"}}));
  // Both read-only: no conflict.
  c = cluster({zoned("node-a", "a")}, {[&] {
                Pod h = holder;
                h.volumes[0].read_only = true;
                return h;
              }()},
              {});
  p.volumes[0].read_only = true;
  EXPECT_EQ(verdicts(c, p), (std::map<std::string, std::string>{{"node-a", "ok"}}));
}

TEST(NodeVolumeLimits, TheCsiNodeCountCapsAttachedVolumes) {
  ApiObjects o;
  o.storage_classes = {wffc()};
  o.claims = {claim("used", "standard-rwo", "pv-used"), claim("new", "standard-rwo")};
  PersistentVolume used = zonal_volume("pv-used", "a", 10 * kGi);
  used.node_affinity.reset();
  o.volumes = {used};
  o.csi_nodes = {CsiNode{"node-a", {{"pd.csi.storage.gke.io", 1}}, {}},
                 CsiNode{"node-b", {{"pd.csi.storage.gke.io", 1}}, {}}};
  Pod holder = notebook("holder", "used");
  holder.node_name = "node-a";
  Cluster c =
      cluster({zoned("node-a", "a"), zoned("node-b", "b"), zoned("node-c", "c")}, {holder}, o);
  EXPECT_EQ(verdicts(c, notebook("p", "new")),
            (std::map<std::string, std::string>{
                {"node-a", plugins::kMaxVolumeCountReason}, {"node-b", "ok"}, {"node-c", "ok"}}));
  // The claim it already attaches does not count twice.
  EXPECT_EQ(verdicts(c, notebook("q", "used"))["node-a"], "ok");
}

TEST(Volumes, ClaimsAreRefusedWhereTheStorageIsNotGiven) {
  // A snapshot of nodes and pods alone (or the in-cluster scheduler, which
  // does not watch claims yet): "not found" would be a wrong answer.
  auto c = Cluster::build({zoned("node-a", "a")}, {}, ApiObjects{});
  ASSERT_TRUE(c);
  auto plan = PodPlan::make(*c, kDefault, notebook("p", "home"));
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().message,
            "pod jhub/p: persistent volume claims when the cluster's claims, volumes and classes "
            "are not given "
            "(VolumeBinding) is not supported by tightpack yet; kube-scheduler would consider it");
}

TEST(Volumes, InTreeVolumesOnNodesWithACsiNodeAreRefused) {
  ApiObjects o;
  o.csi_nodes = {CsiNode{"node-a", {{"ebs.csi.aws.com", 25}}, {}}};
  Cluster c = cluster({zoned("node-a", "a")}, {}, o);
  Pod p = make_pod("p");
  p.volumes.push_back(PodVolume{"d", PodVolume::Source::kAwsElasticBlockStore, "", "vol-1"});
  auto plan = PodPlan::make(c, kDefault, p);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("NodeVolumeLimits"), std::string::npos)
      << plan.error().message;
}

}  // namespace
}  // namespace tightpack
