#include "tightpack/admission.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tightpack {
namespace {
namespace json = boost::json;

const json::value kGpuToleration =
    json::parse(R"({"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"})");

AdmittedPod admit(std::string_view pod, bool ert, bool dts = false) {
  AdmissionOptions o;
  o.extended_resource_toleration = ert;
  o.default_toleration_seconds = dts;
  auto a = admit_pod(json::parse(pod), o, JsonPath());
  EXPECT_TRUE(a) << a.error().what();
  return a ? *a : AdmittedPod{};
}

const json::value& spec(const AdmittedPod& a) {
  return a.pod.at("spec");
}

TEST(Admission, RequestsDefaultToLimitsInContainersAndInitContainers) {
  const auto a = admit(R"({"spec": {
    "containers": [{"name": "a", "resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "2", "memory": "4Gi"}}},
                   {"name": "b", "resources": {"limits": {"memory": "1Gi"}}}],
    "initContainers": [{"name": "i", "resources": {"limits": {"cpu": "100m"}}}]}})",
                       false);
  EXPECT_EQ(spec(a).at("containers").at(0).at("resources").at("requests"),
            json::parse(R"({"cpu":"500m","memory":"4Gi"})"));
  EXPECT_EQ(spec(a).at("containers").at(1).at("resources").at("requests"),
            json::parse(R"({"memory":"1Gi"})"));
  EXPECT_EQ(spec(a).at("initContainers").at(0).at("resources").at("requests"),
            json::parse(R"({"cpu":"100m"})"));
  EXPECT_FALSE(spec(a).as_object().contains("tolerations"));
  EXPECT_EQ(json::value(encode_admission_changes(a.changes)), json::parse(R"([
    {"by":"defaulting","container":"a","resource":"memory","request":"4Gi"},
    {"by":"defaulting","container":"b","resource":"memory","request":"1Gi"},
    {"by":"defaulting","container":"i","resource":"cpu","request":"100m"}])"));
}

TEST(Admission, GpuLimitGetsARequestAndTheToleration) {
  const auto a = admit(
      R"({"spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": 1}}}]}})", true);
  EXPECT_EQ(spec(a).at("containers").at(0).at("resources").at("requests"),
            json::parse(R"({"nvidia.com/gpu":1})"));
  EXPECT_EQ(spec(a).at("tolerations"), json::array{kGpuToleration});
  ASSERT_EQ(a.changes.size(), 2u);
  EXPECT_EQ(a.changes[1].by, "ExtendedResourceToleration");
}

TEST(Admission, NoGpuTolerationWhenThePluginIsOff) {
  const auto a = admit(
      R"({"spec": {"containers": [{"resources": {"requests": {"nvidia.com/gpu": "1"}}}]}})", false);
  EXPECT_TRUE(a.changes.empty());
  EXPECT_FALSE(spec(a).as_object().contains("tolerations"));
}

TEST(Admission, AnEqualTolerationStaysAMatchingOneIsReplacedOthersKept) {
  auto a = admit(R"({"spec": {"containers": [{"resources": {"requests": {"nvidia.com/gpu": "1"}}}],
                   "tolerations": [{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}})",
                 true);
  EXPECT_TRUE(a.changes.empty());
  EXPECT_EQ(spec(a).at("tolerations"), json::array{kGpuToleration});
  a = admit(R"({"spec": {"containers": [{"resources": {"requests": {"nvidia.com/gpu": "1"}}}],
              "tolerations": [{"key":"nvidia.com/gpu","operator":"Equal","value":"present","effect":"NoSchedule"},
                              {"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule","tolerationSeconds":30}]}})",
            true);
  EXPECT_EQ(spec(a).at("tolerations"), json::parse(R"([
    {"key":"nvidia.com/gpu","operator":"Equal","value":"present","effect":"NoSchedule"},
    {"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}])"));
}

TEST(Admission, SeveralExtendedResourcesInSortedOrderInitContainersToo) {
  const auto a = admit(
      R"({"spec": {"containers": [{"resources": {"requests": {"nvidia.com/gpu": "1", "cpu": "1"}}}],
    "initContainers": [{"resources": {"requests": {"example.com/fpga": "1", "hugepages-2Mi": "1Gi"}}}]}})",
      true);
  const auto& t = spec(a).at("tolerations").as_array();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].at("key"), "example.com/fpga");
  EXPECT_EQ(t[1].at("key"), "nvidia.com/gpu");
}

TEST(Admission, DefaultTolerationSecondsUnlessTolerated) {
  auto a = admit(R"({"spec": {"containers": []}})", false, true);
  EXPECT_EQ(spec(a).at("tolerations"), json::parse(R"([
    {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},
    {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}])"));
  // An empty key tolerates both; an empty effect tolerates NoExecute.
  a = admit(R"({"spec": {"tolerations": [{"operator":"Exists"}]}})", false, true);
  EXPECT_TRUE(a.changes.empty());
  a = admit(
      R"({"spec": {"tolerations": [{"key":"node.kubernetes.io/unreachable","operator":"Exists"},
                                         {"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}]}})",
      false, true);
  ASSERT_EQ(a.changes.size(), 1u);
  EXPECT_EQ(a.changes[0].toleration.at("key"), "node.kubernetes.io/not-ready");
}

TEST(Admission, AdmittingTwiceChangesNothing) {
  AdmissionOptions o;
  o.extended_resource_toleration = true;
  auto once = admit_pod(
      json::parse(R"({"spec": {"containers": [{"resources": {"limits": {"amd.com/gpu": "2"}}}]}})"),
      o, JsonPath());
  ASSERT_TRUE(once);
  auto twice = admit_pod(once->pod, o, JsonPath());
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->pod, once->pod);
  EXPECT_TRUE(twice->changes.empty());
}

TEST(Admission, ErrorsNameTheField) {
  const auto error = [](std::string_view pod) {
    auto a = admit_pod(json::parse(pod), AdmissionOptions{}, JsonPath());
    return a ? std::string("admitted") : std::string(a.error().what());
  };
  EXPECT_EQ(error(R"([])"), "$: expected an object, got an array");
  EXPECT_EQ(error(R"({"spec": 3})"), "$.spec: expected an object, got an integer");
  EXPECT_EQ(error(R"({"spec": {"containers": {}}})"),
            "$.spec.containers: expected an array, got an object");
  EXPECT_EQ(error(R"({"spec": {"containers": [{"resources": {"limits": []}}]}})"),
            "$.spec.containers[0].resources.limits: expected an object, got an array");
  EXPECT_EQ(
      error(R"({"spec": {"initContainers": [{"resources": {"limits": {}, "requests": "x"}}]}})"),
      "$.spec.initContainers[0].resources.requests: expected an object, got a string");
  EXPECT_EQ(error(R"({"spec": {"tolerations": [1]}})"),
            "$.spec.tolerations[0]: expected an object, got an integer");
}

}  // namespace
}  // namespace tightpack
