#include "tightpack/what_if.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "tightpack/replay.hpp"
#include "test_util.hpp"

namespace tightpack {
namespace {
namespace json = boost::json;

std::string demo_cluster_text() {
  std::ifstream f(TIGHTPACK_SOURCE_DIR "/examples/daskhub-demo/cluster.json");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

constexpr const char* kWorker = R"({"pod": {"metadata": {"name": "dask-worker", "namespace": "daskhub"},
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

// The copies that fit nowhere come with why, as data: the untolerated taints
// with their nodes and pools, the short resources with the most any node
// that passed the other filters has free, what no node offers.
TEST(WhatIf, UnschedulableCopiesComeWithTheirFactsAsData) {
  WhatIfCluster c = demo();
  std::string request = worker_request(1, "default");
  auto replace = [&](std::string_view from, std::string_view to) {
    request.replace(request.find(from), from.size(), to);
  };
  replace(R"([{"key": "dask", "operator": "Equal", "value": "worker", "effect": "NoSchedule"}])", "[]");
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

TEST(WhatIf, ErrorsNameTheDocumentFieldAndValue) {
  EXPECT_EQ(load_what_if_cluster("{\"items\": [", "", "").error().what().rfind("snapshot: ", 0), 0u);
  auto empty = load_what_if_cluster(R"({"apiVersion": "v1", "kind": "List", "items": []})", "", "");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().what().find("has no nodes"), std::string::npos);
  auto bad_pools = load_what_if_cluster(demo_cluster_text(), R"({"apiVersion": "tightpack.io/v1alpha1",
      "kind": "NodePools", "pools": [{"name": "x", "maxSzie": 3}]})", "");
  ASSERT_FALSE(bad_pools);
  EXPECT_NE(bad_pools.error().what().find("pools: "), std::string::npos);
  EXPECT_NE(bad_pools.error().what().find("maxSzie"), std::string::npos);

  WhatIfCluster c = demo();
  EXPECT_NE(place_text(c, "[1,2").find("\"error\""), std::string::npos);
  EXPECT_NE(place_text(c, R"({"pod": {}, "replicas": 0})").find("replicas"), std::string::npos);
  EXPECT_NE(place_text(c, R"({"pod": {}, "replicas": 1, "colour": 1})").find("colour"), std::string::npos);
  EXPECT_NE(place_text(c, R"({"pod": {}, "replicas": 1, "profile": "spread"})").find("\\\"spread\\\""),
            std::string::npos);
  const std::string wrong_type = place_text(
      c, R"({"pod": {"spec": {"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}}, "replicas": 1})");
  EXPECT_NE(wrong_type.find("cpu"), std::string::npos) << wrong_type;
  EXPECT_NE(wrong_type.find("lots"), std::string::npos) << wrong_type;
  // Still usable after every bad request.
  EXPECT_EQ(place_text(c, worker_request(1, "default")).find("\"error\""), std::string::npos);
}

}  // namespace
}  // namespace tightpack
