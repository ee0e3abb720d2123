#include "tightpack/cluster.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace tightpack {
namespace {

using testing::bound_pod;
using testing::build_cluster;
using testing::kGi;
using testing::kMi;
using testing::make_container;
using testing::make_node;
using testing::make_pod;
using testing::resources;

TEST(ClusterBuild, DuplicateNodeNames) {
  auto c = Cluster::build({make_node("a", 1, 1), make_node("b", 1, 1), make_node("a", 1, 1)}, {});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "duplicate node \"a\"");
}

TEST(ClusterBuild, Columns) {
  Node a = make_node("a", 4000, 8 * kGi, 110);
  set_resource(a.allocatable, "ephemeral-storage", 100 * kGi);
  Cluster c = build_cluster(
      {a, make_node("b", 2000, 4 * kGi, 10)},
      {bound_pod("p1", "a", resources({{"cpu", 500}, {"memory", kGi}})), bound_pod("p2", "a", {}),
       bound_pod("p3", "b", resources({{"cpu", 0}, {"ephemeral-storage", kGi}}))});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c.alloc_cpu(), (std::vector<int64_t>{4000, 2000}));
  EXPECT_EQ(c.alloc_memory(), (std::vector<int64_t>{8 * kGi, 4 * kGi}));
  EXPECT_EQ(c.alloc_ephemeral(), (std::vector<int64_t>{100 * kGi, 0}));
  EXPECT_EQ(c.allowed_pods(), (std::vector<int64_t>{110, 10}));
  EXPECT_EQ(c.req_cpu(), (std::vector<int64_t>{500, 0}));
  EXPECT_EQ(c.req_memory(), (std::vector<int64_t>{kGi, 0}));
  EXPECT_EQ(c.req_ephemeral(), (std::vector<int64_t>{0, kGi}));
  // Non-zero: p2 counts 100m / 200Mi; p3's explicit cpu 0 stays 0.
  EXPECT_EQ(c.nz_cpu(), (std::vector<int64_t>{600, 0}));
  EXPECT_EQ(c.nz_memory(), (std::vector<int64_t>{kGi + 200 * kMi, 200 * kMi}));
  EXPECT_EQ(c.pod_count(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(c.pods_on(0).size(), 2u);
  EXPECT_EQ(c.pods_on(0)[0].key, "default/p1");
}

TEST(ClusterBuild, SkipsFinishedUnboundAndOrphanedPods) {
  Pod done = bound_pod("done", "a", resources({{"cpu", 1000}}));
  done.phase = "Succeeded";
  Pod failed = bound_pod("failed", "a", resources({{"cpu", 1000}}));
  failed.phase = "Failed";
  Pod running = bound_pod("running", "a", resources({{"cpu", 100}}));
  running.phase = "Running";
  Pod pending = make_pod("pending", {resources({{"cpu", 1000}})});
  Pod orphan = bound_pod("orphan", "gone", resources({{"cpu", 1000}}));
  Cluster c = build_cluster({make_node("a", 4000, kGi)}, {done, failed, running, pending, orphan});
  EXPECT_EQ(c.req_cpu()[0], 100);
  EXPECT_EQ(c.pod_count()[0], 1);
}

TEST(ClusterBuild, FindByName) {
  Cluster c = build_cluster({make_node("x", 1, 1), make_node("y", 1, 1)});
  EXPECT_EQ(c.find("y"), 1u);
  EXPECT_EQ(c.find("z"), c.size());
  EXPECT_EQ(c.name(0), "x");
  EXPECT_EQ(c.node(1).name, "y");
}

TEST(ClusterBuild, ScalarResources) {
  Node a = make_node("a", 1000, kGi);
  set_resource(a.allocatable, "nvidia.com/gpu", 4);
  set_resource(a.allocatable, "hugepages-2Mi", 512 * kMi);
  Node b = make_node("b", 1000, kGi);
  Cluster c = build_cluster({a, b}, {bound_pod("p", "a", resources({{"nvidia.com/gpu", 1}})),
                                     bound_pod("q", "b", resources({{"example.com/fpga", 1}}))});
  // Every name a node offers or a bound pod asks for, sorted.
  ASSERT_EQ(c.scalar_count(), 3u);
  EXPECT_EQ(c.scalar_name(0), "example.com/fpga");
  EXPECT_EQ(c.scalar_name(1), "hugepages-2Mi");
  EXPECT_EQ(c.scalar_name(2), "nvidia.com/gpu");
  uint32_t gpu = c.scalar_index("nvidia.com/gpu");
  ASSERT_EQ(gpu, 2u);
  EXPECT_EQ(c.scalar_index("cpu"), UINT32_MAX);
  EXPECT_EQ(c.scalar_index("other.io/x"), UINT32_MAX);
  EXPECT_EQ(c.alloc_scalar(gpu), (std::vector<int64_t>{4, 0}));
  EXPECT_EQ(c.req_scalar(gpu), (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(c.has_scalar(gpu, 0));
  EXPECT_FALSE(c.has_scalar(gpu, 1));
  uint32_t fpga = c.scalar_index("example.com/fpga");
  EXPECT_EQ(c.req_scalar(fpga), (std::vector<int64_t>{0, 1}));
  EXPECT_FALSE(c.has_scalar(fpga, 1));

  PodUsage u = c.usage_of(make_pod("n", {resources({{"nvidia.com/gpu", 2}, {"other.io/x", 3}})}));
  ASSERT_EQ(u.scalars.size(), 1u);
  EXPECT_EQ(u.scalars[0], (std::pair<uint32_t, int64_t>{gpu, 2}));
  ASSERT_EQ(u.unknown_scalars.size(), 1u);
  EXPECT_EQ(u.unknown_scalars[0].first, "other.io/x");
}

TEST(ClusterBuild, TaintSetsAreShared) {
  Node a = make_node("a", 1, 1), b = make_node("b", 1, 1), d = make_node("d", 1, 1),
       e = make_node("e", 1, 1);
  a.taints = {Taint{"k", "v", "NoSchedule"}};
  b.taints = {Taint{"k", "v", "NoSchedule"}};
  d.taints = {Taint{"k", "v", "NoExecute"}};
  Cluster c = build_cluster({a, b, d, e});
  EXPECT_EQ(c.taint_set(0), c.taint_set(1));
  EXPECT_NE(c.taint_set(0), c.taint_set(2));
  EXPECT_NE(c.taint_set(2), c.taint_set(3));
  EXPECT_EQ(c.taint_set_count(), 3u);
  EXPECT_TRUE(c.taints_of_set(c.taint_set(3)).empty());
  EXPECT_EQ(c.taints_of_set(c.taint_set(2))[0].effect, "NoExecute");
}

TEST(ClusterBuild, Images) {
  Node a = make_node("a", 1, 1), b = make_node("b", 1, 1);
  a.images = {ContainerImage{{"x:1", "x:1"}, 10}, ContainerImage{{"y:1"}, 20}};
  b.images = {ContainerImage{{"x:1"}, 30}};
  Cluster c = build_cluster({a, b});
  StrId x = c.strings().find("x:1");
  ASSERT_NE(x, kNoStr);
  EXPECT_EQ(c.image_state(x)->num_nodes, 2);  // a name listed twice on a node counts once
  EXPECT_EQ(c.image_state(x)->size, 10);
  EXPECT_EQ(c.images(0).size(), 2u);
  EXPECT_EQ(c.strings().find("z:1"), kNoStr);
  EXPECT_EQ(c.image_state(kNoStr), nullptr);
}

TEST(ClusterPlace, PlaceRemoveAndRelief) {
  Cluster c = build_cluster({make_node("a", 4000, 8 * kGi)});
  Pod p = make_pod("p", {resources({{"cpu", 1000}})});
  p.containers.mut()[0].ports = {ContainerPort{80, 8080, "", ""}};
  c.place(0, BoundPod{"default/p1", 5, c.usage_of(p)});
  c.place(0, BoundPod{"default/p2", 1, c.usage_of(make_pod("q"))});
  EXPECT_EQ(c.req_cpu()[0], 1000);
  EXPECT_EQ(c.nz_cpu()[0], 1100);
  EXPECT_EQ(c.nz_memory()[0], 400 * kMi);
  EXPECT_EQ(c.pod_count()[0], 2);
  EXPECT_EQ(c.used_ports(0).size(), 1u);

  Relief r = c.relief_of(0, {0, 1});
  EXPECT_EQ(r.cpu, 1000);
  EXPECT_EQ(r.pods, 2);
  EXPECT_EQ(r.ports.size(), 1u);
  EXPECT_EQ(c.pod_count()[0], 2);  // a what-if only

  c.remove(0, {0});
  EXPECT_EQ(c.req_cpu()[0], 0);
  EXPECT_EQ(c.nz_cpu()[0], 100);
  EXPECT_EQ(c.pod_count()[0], 1);
  EXPECT_TRUE(c.used_ports(0).empty());
  ASSERT_EQ(c.pods_on(0).size(), 1u);
  EXPECT_EQ(c.pods_on(0)[0].key, "default/p2");
}

TEST(ClusterUsage, OverheadCountsInBothViews) {
  Cluster c = build_cluster({make_node("a", 4000, 8 * kGi)});
  Pod p = make_pod("p");
  p.overhead = resources({{"cpu", 250}, {"memory", 64 * kMi}});
  PodUsage u = c.usage_of(p);
  EXPECT_EQ(u.cpu, 250);
  EXPECT_EQ(u.memory, 64 * kMi);
  EXPECT_EQ(u.nz_cpu, 350);
  EXPECT_EQ(u.nz_memory, 264 * kMi);
}

TEST(ClusterUsage, SidecarHostPortsAreUsed) {
  Cluster c = build_cluster({make_node("a", 4000, 8 * kGi)});
  Pod p = make_pod("p");
  Container proxy = make_container({}, "proxy");
  proxy.restart_always = true;
  proxy.ports = {ContainerPort{15001, 15001, "", ""}};
  Container init = make_container({}, "init");
  init.ports = {
      ContainerPort{9000, 9000, "", ""}};  // a run-to-completion init container's port is not held
  p.init_containers = {proxy, init};
  PodUsage u = c.usage_of(p);
  ASSERT_EQ(u.host_ports.size(), 1u);
  EXPECT_EQ(u.host_ports[0], (HostPort{"0.0.0.0", "TCP", 15001}));
}

TEST(ClusterUsage, NonZeroViewWithPodLevelResources) {
  Cluster c = build_cluster({make_node("a", 4000, 8 * kGi)});
  Pod p = make_pod("p", {resources({{"cpu", 500}}), {}});
  p.pod_requests = resources({{"memory", kGi}});
  PodUsage u = c.usage_of(p);
  EXPECT_EQ(u.cpu, 500);
  EXPECT_EQ(u.memory, kGi);
  EXPECT_EQ(u.nz_cpu, 500);
  EXPECT_EQ(u.nz_memory, kGi);
}

}  // namespace
}  // namespace tightpack
