#include "tightpack/replay.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "test_util.hpp"

namespace tightpack {
namespace {

namespace json = boost::json;
using testing::json_of;

json::value replay(std::string_view text) {
  std::string out = replay_text(text);
  auto v = parse_json(out);
  if (!v || !v->is_object()) {
    ADD_FAILURE() << "replay_text did not return a JSON object: " << out;
    return json::object{};
  }
  return std::move(*v);
}

// The error text of a replay that must fail.
std::string replay_error(std::string_view text) {
  json::value v = replay(text);
  const json::value* e = v.as_object().if_contains("error");
  if (!e || !e->is_string()) {
    ADD_FAILURE() << "expected {\"error\": …}, got " << json::serialize(v);
    return "";
  }
  return std::string(e->as_string());
}

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.rfind(prefix, 0) == 0;
}

const char* const kNode = R"({"metadata": {"name": "%s"},
  "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}})";

std::string node_json(const std::string& name) {
  std::string s = kNode;
  s.replace(s.find("%s"), 2, name);
  return s;
}

const std::string kScenario =
    R"({"profile": "default", "nodes": [)" + node_json("a") + "," + node_json("b") +
    R"(], "pods": [], "incoming": [{"metadata": {"name": "w"}, "replicas": 3,
  "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}]})";

TEST(ReplayText, MalformedJson) {
  EXPECT_TRUE(starts_with(replay_error(""), "invalid JSON at empty input: ")) << replay_error("");
  EXPECT_TRUE(starts_with(replay_error("{"), "invalid JSON at line 1 column 2: "))
      << replay_error("{");
  EXPECT_TRUE(starts_with(replay_error("{\"nodes\": [}"), "invalid JSON at line 1 column 12: "));
  EXPECT_TRUE(starts_with(replay_error("{\n\"nodes\": tru\n}"), "invalid JSON at line 2 column "));
  EXPECT_TRUE(
      starts_with(replay_error(std::string(100000, '[')), "invalid JSON at line 1 column "));
  EXPECT_TRUE(starts_with(replay_error("\xff\xfe"), "invalid JSON at line 1 column 1: "));
}

TEST(ReplayText, NotAScenario) {
  EXPECT_EQ(replay_error("[]"), "$: expected an object, got an array");
  EXPECT_EQ(replay_error("42"), "$: expected an object, got an integer");
  EXPECT_EQ(replay_error("null"), "$: expected an object, got null");
  EXPECT_EQ(replay_error(R"({"scenario": []})"), "$.scenario: expected an object, got an array");
}

TEST(ReplayText, BadProfile) {
  EXPECT_EQ(replay_error(R"({"profile": "bogus"})"),
            "$.profile: unknown profile \"bogus\" (default, most-allocated, rtc, tightpack)");
  EXPECT_EQ(
      replay_error(R"({"scenario": {"profile": "bogus"}})"),
      "$.scenario.profile: unknown profile \"bogus\" (default, most-allocated, rtc, tightpack)");
  EXPECT_EQ(replay_error(R"({"profile": 7})"), "$.profile: expected an object, got an integer");
  EXPECT_EQ(replay_error(R"({"profile": {"name": "default", "scoreWeights": []}})"),
            "$.profile.scoreWeights: expected an object, got an array");
  std::string e = replay_error(
      R"({"profile": {"schedulerConfig": {"apiVersion": "v1", "kind": "KubeSchedulerConfiguration"}}})");
  EXPECT_TRUE(
      starts_with(e, "$.profile.apiVersion: expected kubescheduler.config.k8s.io/v1, got \"v1\""))
      << e;
  e = replay_error(
      R"({"profile": {"name": "rtc", "scoringStrategy": {"type": "RequestedToCapacityRatio",
                       "shape": [{"utilization": 10, "score": 5}, {"utilization": 5, "score": 6}]}}})");
  EXPECT_TRUE(starts_with(
      e,
      "$.profile.profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio"
      ".shape[1].utilization: "))
      << e;
}

TEST(ReplayText, BadObjects) {
  EXPECT_EQ(replay_error(R"({"nodes": 5})"), "$.nodes: expected an array, got an integer");
  std::string e = replay_error(
      R"({"nodes": [{"metadata": {"name": "a"}, "status": {"allocatable": {"cpu": "x"}}}]})");
  EXPECT_TRUE(starts_with(e, "$.nodes[0].status.allocatable.cpu: invalid quantity \"x\"")) << e;
  EXPECT_EQ(replay_error(R"({"nodes": [{"metadata": {}}]})"),
            "$.nodes[0].metadata.name: a node needs a name");
  EXPECT_EQ(replay_error(R"({"pods": [{"spec": {"priority": "x"}}]})"),
            "$.pods[0].spec.priority: expected an integer, got a string");
  EXPECT_EQ(
      replay_error(R"({"scenario": {"incoming": [{"metadata": {"name": "p"}, "replicas": -5}]}})"),
      "$.scenario.incoming[0].replicas: replicas -5 not in valid range [0, 1000000]");
  EXPECT_EQ(replay_error(R"({"incoming": [{"metadata": {"name": "p"}, "replicas": "3"}]})"),
            "$.incoming[0].replicas: expected an integer, got a string");
  EXPECT_EQ(replay_error(R"({"incoming": [{"metadata": {"name": "p"}, "replicas": 1000001}]})"),
            "$.incoming[0].replicas: replicas 1000001 not in valid range [0, 1000000]");
  EXPECT_EQ(
      replay_error(R"({"nodes": [{"metadata": {"name": "a"}}, {"metadata": {"name": "a"}}]})"),
      "duplicate node \"a\"");
}

TEST(ReplayText, NoNodes) {
  json::value v = replay(R"({"incoming": [{"metadata": {"name": "p"}}]})");
  const auto& results = v.at("results").as_array();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0], json_of(R"({"pod": "default/p", "feasible": 0, "scored": false, "top": [],
                                    "chosen": null, "message": "no nodes available to schedule pods"})"));
  EXPECT_EQ(v.at("profile").at("name").as_string(), "default");
}

TEST(ReplayText, EmptyScenario) {
  json::value v = replay("{}");
  EXPECT_TRUE(v.at("results").as_array().empty());
}

TEST(ReplayText, ScenarioResults) {
  json::value v = replay(kScenario);
  const auto& results = v.at("results").as_array();
  ASSERT_EQ(results.size(), 3u);
  // Empty nodes tie; a (the smaller name) is chosen; the next replica sees it.
  // Fit: (50 + 75) / 2. Balanced, the change in balance (kubernetes#135573):
  // 100 empty, 87 with the pod (fractions 0.5 and 0.25, 87.5 truncated):
  // 50 + (50 + 87 − 100) / 2 = 68.
  EXPECT_EQ(results[0], json_of(R"({"pod": "default/w-0", "filter": {"a": "ok", "b": "ok"},
      "scores": {"a": {"TaintToleration": 300, "NodeAffinity": 0, "NodeResourcesFit": 62,
                       "NodeResourcesBalancedAllocation": 68, "ImageLocality": 0, "total": 430},
                 "b": {"TaintToleration": 300, "NodeAffinity": 0, "NodeResourcesFit": 62,
                       "NodeResourcesBalancedAllocation": 68, "ImageLocality": 0, "total": 430}},
      "feasible": 2, "scored": true, "top": ["a", "b"], "chosen": "a"})"));
  EXPECT_EQ(results[1].at("chosen").as_string(), "b");
  EXPECT_EQ(results[1].at("top"), json_of(R"(["b"])"));
  // The third replica: both nodes hold one 1-cpu pod: tie again.
  EXPECT_EQ(results[2].at("top"), json_of(R"(["a", "b"])"));
  EXPECT_EQ(results[2].at("scores").at("a").at("NodeResourcesFit").as_int64(), 25);  // (0 + 50) / 2
  EXPECT_FALSE(results[2].as_object().contains("message"));
}

TEST(ReplayText, UnschedulablePodsAreDropped) {
  std::string scenario = R"({"nodes": [)" + node_json("a") + R"(], "incoming": [
      {"metadata": {"name": "big"}, "spec": {"containers": [{"resources": {"requests": {"cpu": "3"}}}]}},
      {"metadata": {"name": "small"}, "spec": {"containers": [{"resources": {"requests": {"cpu": "2"}}}]}}]})";
  json::value v = replay(scenario);
  const auto& results = v.at("results").as_array();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].at("filter"), json_of(R"({"a": ["Insufficient cpu"]})"));
  EXPECT_EQ(results[0].at("filterPlugin"), json_of(R"({"a": "NodeResourcesFit"})"));
  EXPECT_EQ(results[0].at("chosen"), json::value(nullptr));
  // 3 cpu on a 2-cpu node: no eviction can help (kubernetes#131345), and one
  // period at the end (kubernetes#123301).
  EXPECT_EQ(results[0].at("message").as_string(),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "Preemption is not helpful for scheduling.");
  EXPECT_EQ(results[1].at("chosen").as_string(), "a");
  EXPECT_EQ(results[1].at("scored"), json::value(false));
}

TEST(ReplayText, UnsupportedPodIsAnErrorResult) {
  std::string scenario = R"({"nodes": [)" + node_json("a") + R"(], "incoming": [
      {"metadata": {"name": "p"}, "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu-0"}]}},
      {"metadata": {"name": "q"}}]})";
  json::value v = replay(scenario);
  const auto& results = v.at("results").as_array();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].at("pod").as_string(), "default/p");
  EXPECT_EQ(results[0].at("error").as_string(),
            "pod default/p: resource claims (DynamicResources) is not supported by tightpack yet; "
            "kube-scheduler "
            "would consider it");
  EXPECT_EQ(results[1].at("chosen").as_string(), "a");
}

TEST(ReplayText, TruncatedScenariosNeverCrash) {
  // Every strict prefix of a valid scenario is invalid JSON.
  for (size_t len = 0; len < kScenario.size(); ++len) {
    std::string e = replay_error(std::string_view(kScenario).substr(0, len));
    ASSERT_TRUE(starts_with(e, "invalid JSON at ")) << len << ": " << e;
  }
  EXPECT_EQ(replay(kScenario).at("results").as_array().size(), 3u);
}

TEST(ReplayText, MutatedScenariosNeverCrash) {
  // Single-character damage anywhere: the answer is always one JSON object
  // holding either an error or results.
  int errors = 0, results = 0;
  for (size_t i = 0; i < kScenario.size(); ++i) {
    for (char c : {'"', '{', ']', '0', '-', 'x', ' '}) {
      std::string text = kScenario;
      text[i] = c;
      json::value v = replay(text);
      const auto& o = v.as_object();
      ASSERT_TRUE(o.contains("error") || o.contains("results")) << text;
      (o.contains("error") ? errors : results)++;
    }
  }
  EXPECT_GT(errors, 100);
  EXPECT_GT(results, 100);
}

TEST(DecodeScenario, ReplicasAreExpanded) {
  auto s = decode_scenario(json_of(R"({"scenario": {"profile": "rtc", "incoming": [
      {"metadata": {"name": "a", "namespace": "ns"}, "replicas": 2}, {"metadata": {"name": "b"}},
      {"metadata": {"name": "none"}, "replicas": 0}]}, "expected": {"whatever": 1}})"));
  ASSERT_TRUE(s) << s.error().what();
  EXPECT_EQ(s->profile_name, "rtc");
  EXPECT_EQ(s->profile.fit.strategy, ScoringStrategy::RequestedToCapacityRatio);
  ASSERT_EQ(s->incoming.size(), 3u);
  EXPECT_EQ(s->incoming[0].key(), "ns/a-0");
  EXPECT_EQ(s->incoming[1].key(), "ns/a-1");
  EXPECT_EQ(s->incoming[2].key(), "default/b");
}

}  // namespace
}  // namespace tightpack

namespace tightpack {
namespace {

// DefaultPreemption's fifth criterion: of candidates equal in every other one,
// the node whose highest-priority victims started last (status.startTime).
// kube-scheduler-reference names b here; without start times the smallest
// name, a, would be named.
TEST(ReplayText, PreemptionMessageHonoursVictimsStartTimes) {
  auto node = [](const char* name) {
    return std::string(R"({"metadata": {"name": ")") + name +
           R"("}, "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "110"}}})";
  };
  auto victim = [](const char* name, const char* on, const char* started) {
    return std::string(R"({"metadata": {"name": ")") + name + R"("}, "spec": {"nodeName": ")" + on +
           R"(", "priority": 0, "containers": [{"name": "c", "resources": {"requests": {"cpu": "800m"}}}]},
               "status": {"phase": "Running", "startTime": ")" +
           started + R"("}})";
  };
  const std::string scenario =
      R"({"profile": "default", "nodes": [)" + node("c") + "," + node("a") + "," + node("b") +
      R"(], "pods": [)" + victim("c-low", "c", "2024-01-01T00:01:40Z") + "," +
      victim("a-low", "a", "2024-01-01T00:01:40Z") + "," +
      victim("b-low", "b", "2024-01-01T00:03:20Z") +
      R"(], "incoming": [{"metadata": {"name": "p"}, "spec": {"priority": 10,
                                   "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}}]})";
  json::value v = replay(scenario);
  EXPECT_EQ(json::value_to<std::string>(v.at("results").at(0).at("message")),
            "0/3 nodes are available: 3 Insufficient cpu. preemption: found a potential placement "
            "for pod on node "
            "b, preempting 1 victims");
}

// "release": "v1.36" words FailedScheduling as the kube-scheduler
// zero-to-jupyterhub ships: DynamicResources' PostFilter adds "no new claims
// to deallocate" (kubernetes#140222 dropped it in v1.37), and when preemption
// frees a node there is no PostFilter text (kubernetes#140180 added it).
TEST(ReplayText, ReleaseV136WordsPostFilterAsV136) {
  auto node = [](const char* name) {
    return std::string(R"({"metadata": {"name": ")") + name +
           R"("}, "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "110"}}})";
  };
  const std::string busy = R"({"metadata": {"name": "low"}, "spec": {"nodeName": "a", "priority": 0,
      "containers": [{"name": "c", "resources": {"requests": {"cpu": "800m"}}}]}, "status": {"phase": "Running"}})";
  auto scenario = [&](const char* profile, int priority) {
    return std::string(R"({"profile": )") + profile + R"(, "nodes": [)" + node("a") +
           R"(], "pods": [)" + busy +
           R"(], "incoming": [{"metadata": {"name": "p"}, "spec": {"priority": )" +
           std::to_string(priority) +
           R"(, "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}}]})";
  };
  auto message = [&](const char* profile, int priority) {
    return json::value_to<std::string>(
        replay(scenario(profile, priority)).at("results").at(0).at("message"));
  };
  const char* v136 = R"({"name": "default", "release": "v1.36"})";
  EXPECT_EQ(message(v136, 0),
            "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
            "0/1 nodes are "
            "available: 1 No preemption victims found for incoming pod.");
  EXPECT_EQ(message(v136, 10), "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_EQ(message(R"({"name": "default", "release": "v1.37"})", 0),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "No preemption "
            "victims found for incoming pod.");
  EXPECT_EQ(message("\"default\"", 10),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement "
            "for pod on node "
            "a, preempting 1 victims");
  // A profile that disables DynamicResources has no such text.
  const char* no_dra =
      R"({"release": "v1.36", "schedulerConfig": {"apiVersion": "kubescheduler.config.k8s.io/v1",
      "kind": "KubeSchedulerConfiguration", "profiles": [{"plugins": {"multiPoint": {"disabled": [{"name": "DynamicResources"}]}}}]}})";
  EXPECT_EQ(message(no_dra, 0),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "No preemption "
            "victims found for incoming pod.");
  EXPECT_EQ(replay_error(R"({"profile": {"name": "default", "release": "v1.34"}})"),
            "$.profile.release: unknown kube-scheduler release \"v1.34\" (v1.37, v1.36, v1.35, "
            "v1.30)");
}

// "release": "v1.30" decides and words as kube-scheduler v1.30.14, which
// zero-to-jupyterhub's released charts run: the first untolerated taint is
// named, a pod larger than a node's allocatable is only Unschedulable (so
// preemption tries the node), DynamicResources is not in the profile, and no
// preemption text when a node is freed.
TEST(ReplayText, ReleaseV130DecidesAndWordsAsV130) {
  const std::string nodes = R"([
      {"metadata": {"name": "gpu"}, "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
       "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}},
      {"metadata": {"name": "small"}, "status": {"allocatable": {"cpu": "1", "memory": "8Gi", "pods": "110"}}}])";
  const std::string low =
      R"({"metadata": {"name": "low"}, "spec": {"nodeName": "small", "priority": 0,
      "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}, "status": {"phase": "Running"}})";
  auto message = [&](const char* release) {
    const std::string scenario =
        std::string(R"({"profile": {"name": "default", "release": ")") + release +
        R"("}, "nodes": )" + nodes + R"(, "pods": [)" + low +
        R"(], "incoming": [{"metadata": {"name": "p"}, "spec": {"priority": 10,
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}]})";
    return json::value_to<std::string>(replay(scenario).at("results").at(0).at("message"));
  };
  // small has 1 CPU in all: v1.30 tries preemption there (it cannot help), v1.37 does not.
  EXPECT_EQ(message("v1.30"),
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint "
            "{nvidia.com/gpu: present}. "
            "preemption: 0/2 nodes are available: 1 Insufficient cpu, 1 Preemption is not helpful "
            "for scheduling.");
  EXPECT_EQ(message("v1.37"),
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). "
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
}

}  // namespace
}  // namespace tightpack
