#include "tightpack/pod_resources.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace tightpack {
namespace {

using testing::kGi;
using testing::kMi;
using testing::make_container;
using testing::make_pod;
using testing::pod_from_json;
using testing::resources;

Container sidecar(ResourceList requests) {
  Container c = make_container(std::move(requests), "sidecar");
  c.restart_always = true;
  return c;
}

TEST(PodRequests, SumsContainers) {
  Pod p = make_pod("p", {resources({{"cpu", 100}, {"memory", kGi}}), resources({{"cpu", 200}})});
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 300}, {"memory", kGi}}));
}

TEST(PodRequests, EmptyPodRequestsNothing) {
  Pod p = make_pod("p");
  EXPECT_TRUE(pod_requests(p, false).empty());
}

TEST(PodRequests, ExtendedResourcesAreSummedToo) {
  Pod p = make_pod("p", {resources({{"nvidia.com/gpu", 1}}), resources({{"nvidia.com/gpu", 2}})});
  EXPECT_EQ(pod_requests(p, false), resources({{"nvidia.com/gpu", 3}}));
}

TEST(PodRequests, InitContainersAreAMaximumOverPhases) {
  Pod p = make_pod("p", {resources({{"cpu", 100}, {"memory", 2 * kGi}})});
  p.init_containers = {make_container(resources({{"cpu", 500}, {"memory", kGi}})),
                       make_container(resources({{"cpu", 300}, {"memory", 3 * kGi}}))};
  // Init containers run one at a time: each phase alone against the app containers.
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 500}, {"memory", 3 * kGi}}));
}

TEST(PodRequests, InitContainerSmallerThanAppsChangesNothing) {
  Pod p = make_pod("p", {resources({{"cpu", 1000}})});
  p.init_containers = {make_container(resources({{"cpu", 200}}))};
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 1000}}));
}

TEST(PodRequests, InitContainerResourceMissingFromAppsIsKept) {
  Pod p = make_pod("p", {resources({{"cpu", 1000}})});
  p.init_containers = {make_container(resources({{"ephemeral-storage", 5 * kGi}}))};
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 1000}, {"ephemeral-storage", 5 * kGi}}));
}

// The cases of KEP-753 "exposing pod resource requirements", also found in
// resourcehelper's TestPodResourceRequests.
TEST(PodRequests, RestartableInitContainerRunsBesideApps) {
  Pod p = make_pod("p", {resources({{"cpu", 1000}})});
  p.init_containers = {sidecar(resources({{"cpu", 1000}}))};
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 2000}}));
}

TEST(PodRequests, MultipleRestartableInitContainers) {
  Pod p = make_pod("p", {resources({{"cpu", 1000}})});
  p.init_containers = {sidecar(resources({{"cpu", 1000}})), sidecar(resources({{"cpu", 2000}})),
                       sidecar(resources({{"cpu", 3000}}))};
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 7000}}));
}

TEST(PodRequests, SidecarAddsToEveryLaterInitPhase) {
  Pod p = make_pod("p", {resources({{"cpu", 1000}})});
  // Phases: 5 | s1=1 | s1+s2=3 | 3 + (1+2)=6 | s1+s2+s3=6; apps: 1 + 6 = 7.
  p.init_containers = {make_container(resources({{"cpu", 5000}})),
                       sidecar(resources({{"cpu", 1000}})), sidecar(resources({{"cpu", 2000}})),
                       make_container(resources({{"cpu", 3000}})),
                       sidecar(resources({{"cpu", 3000}}))};
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 7000}}));
}

TEST(PodRequests, InitPhaseWithSidecarsCanDominate) {
  Pod p = make_pod("p", {resources({{"cpu", 1000}})});
  // The regular init container runs beside the sidecar: 10 + 1 = 11 > apps 1 + 1.
  p.init_containers = {sidecar(resources({{"cpu", 1000}})),
                       make_container(resources({{"cpu", 10000}}))};
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 11000}}));
}

TEST(PodRequests, SidecarAfterRegularInitDoesNotRunBesideIt) {
  Pod p = make_pod("p", {resources({{"cpu", 1000}})});
  // The regular init container finishes before the sidecar starts: max(10, 1+2).
  p.init_containers = {make_container(resources({{"cpu", 10000}})),
                       sidecar(resources({{"cpu", 2000}}))};
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 10000}}));
}

TEST(PodRequests, OverheadIsAdded) {
  Pod p = make_pod("p", {resources({{"cpu", 100}, {"memory", kGi}})});
  p.init_containers = {make_container(resources({{"cpu", 500}}))};
  p.overhead = resources({{"cpu", 250}, {"memory", 120 * kMi}});
  // After the init maximum: max(100, 500) + 250.
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 750}, {"memory", kGi + 120 * kMi}}));
  EXPECT_EQ(pod_requests(p, true), resources({{"cpu", 750}, {"memory", kGi + 120 * kMi}}));
}

TEST(PodRequests, PodLevelResourcesOverrideCpuAndMemory) {
  Pod p = make_pod("p", {resources({{"cpu", 500}, {"memory", kGi}, {"ephemeral-storage", kGi}})});
  p.pod_requests = resources({{"cpu", 2000}});
  EXPECT_EQ(pod_requests(p, false),
            resources({{"cpu", 2000}, {"ephemeral-storage", kGi}, {"memory", kGi}}));
  p.pod_requests = resources({{"cpu", 2000}, {"memory", 4 * kGi}});
  EXPECT_EQ(pod_requests(p, false),
            resources({{"cpu", 2000}, {"ephemeral-storage", kGi}, {"memory", 4 * kGi}}));
}

TEST(PodRequests, PodLevelResourcesOnlyForSupportedResources) {
  // IsSupportedPodLevelResource: ephemeral-storage at pod level is ignored.
  Pod p = make_pod("p", {resources({{"ephemeral-storage", kGi}})});
  p.pod_requests = resources({{"ephemeral-storage", 8 * kGi}});
  EXPECT_EQ(pod_requests(p, false), resources({{"ephemeral-storage", kGi}}));
}

TEST(PodRequests, OverheadAddsToPodLevelResources) {
  Pod p = make_pod("p", {resources({{"cpu", 500}})});
  p.pod_requests = resources({{"cpu", 2000}});
  p.overhead = resources({{"cpu", 100}});
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 2100}}));
}

TEST(PodRequestsNonZero, ContainerWithoutRequestsCountsDefaults) {
  Pod p = make_pod("p");
  EXPECT_EQ(pod_requests(p, true), resources({{"cpu", 100}, {"memory", 200 * kMi}}));
  EXPECT_EQ(kDefaultMilliCpuRequest, 100);
  EXPECT_EQ(kDefaultMemoryRequest, 200 * kMi);
}

TEST(PodRequestsNonZero, EachContainerCountsItsOwnDefaults) {
  Pod p = make_pod("p", {{}, {}, resources({{"cpu", 300}})});
  EXPECT_EQ(pod_requests(p, true), resources({{"cpu", 500}, {"memory", 600 * kMi}}));
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 300}}));
}

TEST(PodRequestsNonZero, ExplicitZeroIsNotDefaulted) {
  Pod p = make_pod("p", {resources({{"cpu", 0}})});
  EXPECT_EQ(pod_requests(p, true), resources({{"cpu", 0}, {"memory", 200 * kMi}}));
  p = make_pod("p", {resources({{"cpu", 0}, {"memory", 0}})});
  EXPECT_EQ(pod_requests(p, true), resources({{"cpu", 0}, {"memory", 0}}));
}

TEST(PodRequestsNonZero, OnlyCpuAndMemoryAreDefaulted) {
  Pod p = make_pod("p", {resources({{"nvidia.com/gpu", 1}})});
  EXPECT_EQ(pod_requests(p, true),
            resources({{"cpu", 100}, {"memory", 200 * kMi}, {"nvidia.com/gpu", 1}}));
}

TEST(PodRequestsNonZero, InitAndSidecarContainersGetDefaultsToo) {
  Pod p = make_pod("p");
  p.init_containers = {make_container({})};
  EXPECT_EQ(pod_requests(p, true), resources({{"cpu", 100}, {"memory", 200 * kMi}}));
  p.init_containers = {sidecar({})};
  EXPECT_EQ(pod_requests(p, true), resources({{"cpu", 200}, {"memory", 400 * kMi}}));
  EXPECT_TRUE(pod_requests(p, false).empty());
}

TEST(PodRequestsNonZero, PodLevelRequestOverridesTheDefaults) {
  Pod p = make_pod("p", {{}, {}});
  p.pod_requests = resources({{"cpu", 1500}});
  EXPECT_EQ(pod_requests(p, true), resources({{"cpu", 1500}, {"memory", 400 * kMi}}));
}

TEST(PodRequests, RequestsDefaultToLimitsThroughDecode) {
  Pod p = pod_from_json(R"({
    "metadata": {"name": "p"},
    "spec": {"containers": [
      {"name": "a", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}},
      {"name": "b", "resources": {"requests": {"cpu": "250m"}, "limits": {"cpu": "2", "memory": "512Mi"}}},
      {"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1", "ephemeral-storage": "2Gi"}}}
    ]}})");
  ASSERT_EQ(p.containers.size(), 3u);
  EXPECT_EQ(p.containers[0].requests, resources({{"cpu", 1000}, {"memory", kGi}}));
  EXPECT_EQ(p.containers[1].requests, resources({{"cpu", 250}, {"memory", 512 * kMi}}));
  EXPECT_EQ(p.containers[2].requests,
            resources({{"ephemeral-storage", 2 * kGi}, {"nvidia.com/gpu", 1}}));
  EXPECT_EQ(p.containers[1].limits, resources({{"cpu", 2000}, {"memory", 512 * kMi}}));
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 1250},
                                               {"ephemeral-storage", 2 * kGi},
                                               {"memory", kGi + 512 * kMi},
                                               {"nvidia.com/gpu", 1}}));
  // Container c has no cpu or memory after defaulting: it counts 100m / 200Mi.
  EXPECT_EQ(pod_requests(p, true), resources({{"cpu", 1350},
                                              {"ephemeral-storage", 2 * kGi},
                                              {"memory", kGi + 712 * kMi},
                                              {"nvidia.com/gpu", 1}}));
}

TEST(PodRequests, PodLevelLimitsDefaultPodLevelRequests) {
  Pod p = pod_from_json(R"({
    "metadata": {"name": "p"},
    "spec": {"resources": {"limits": {"cpu": "4", "memory": "8Gi"}, "requests": {"memory": "2Gi"}},
             "containers": [{"name": "a", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}})");
  EXPECT_EQ(p.pod_requests, resources({{"cpu", 4000}, {"memory", 2 * kGi}}));
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 4000}, {"memory", 2 * kGi}}));
}

TEST(PodRequests, SidecarThroughDecode) {
  Pod p = pod_from_json(R"({
    "metadata": {"name": "p"},
    "spec": {
      "initContainers": [
        {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "500m"}}},
        {"name": "migrate", "restartPolicy": "Never", "resources": {"requests": {"cpu": "2"}}}],
      "containers": [{"name": "app", "resources": {"requests": {"cpu": "1"}}}]}})");
  ASSERT_EQ(p.init_containers.size(), 2u);
  EXPECT_TRUE(p.init_containers[0].restart_always);
  EXPECT_FALSE(p.init_containers[1].restart_always);
  EXPECT_EQ(pod_requests(p, false), resources({{"cpu", 2500}}));
}

TEST(ResourceNames, ExtendedAndScalar) {
  EXPECT_FALSE(is_extended_resource("cpu"));
  EXPECT_FALSE(is_extended_resource("memory"));
  EXPECT_FALSE(is_extended_resource("hugepages-2Mi"));
  EXPECT_FALSE(is_extended_resource("kubernetes.io/something"));
  EXPECT_FALSE(is_extended_resource("requests.example.com/foo"));
  EXPECT_TRUE(is_extended_resource("nvidia.com/gpu"));
  EXPECT_TRUE(is_extended_resource("example.com/foo"));
  EXPECT_TRUE(is_extended_resource("amd.com/gpu"));
  EXPECT_TRUE(is_extended_resource("example.com/Bad_Name"));  // the name part may
  EXPECT_FALSE(is_extended_resource("example.kubernetes.io/foo"));
  EXPECT_FALSE(is_extended_resource("example.com/-bad"));
  EXPECT_FALSE(is_extended_resource("Example.com/gpu"));  // the prefix may not
  EXPECT_FALSE(is_extended_resource("/gpu"));
  EXPECT_FALSE(is_extended_resource("a/b/c"));
  EXPECT_FALSE(is_extended_resource("example..com/gpu"));
  // A prefix of 247 is a subdomain, but "requests." makes it 256 (> 253).
  const auto domain = [](size_t label) {
    const std::string l(label, 'a');
    return l + "." + l + "." + l + "." + l;
  };
  EXPECT_FALSE(is_extended_resource(domain(61) + "/gpu"));
  EXPECT_TRUE(is_extended_resource(domain(60) + "/gpu"));
  EXPECT_FALSE(is_extended_resource("example.com/" + std::string(64, 'g')));

  EXPECT_FALSE(is_scalar_resource("cpu"));
  EXPECT_FALSE(is_scalar_resource("memory"));
  EXPECT_FALSE(is_scalar_resource("ephemeral-storage"));
  EXPECT_FALSE(is_scalar_resource("pods"));
  EXPECT_TRUE(is_scalar_resource("nvidia.com/gpu"));
  EXPECT_TRUE(is_scalar_resource("hugepages-1Gi"));
  EXPECT_TRUE(is_scalar_resource("kubernetes.io/something"));
  EXPECT_TRUE(is_scalar_resource("attachable-volumes-aws-ebs"));
}

}  // namespace
}  // namespace tightpack
