// `tightpack moves`: the planner's interface (tests/clients/test_moves.py
// holds its plans against cluster-autoscaler's own loop on the real
// operator's pods); here its options and its messages.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "cli/cli.hpp"
#include "cli_run.hpp"

namespace tightpack::cli {
namespace {

namespace json = boost::json;
using testing::CliRun;
using testing::run_cli;

json::object node(const std::string& name) {
  return json::object{
      {"metadata", json::object{{"name", name}}},
      {"status", json::object{{"allocatable",
                               json::object{{"cpu", "8"}, {"memory", "32Gi"}, {"pods", "110"}}}}}};
}

json::object worker(const std::string& name, const std::string& on, bool opted_in) {
  json::object labels{{"dask.org/component", "worker"}};
  if (opted_in) labels["tightpack.io/move"] = "true";
  return json::object{
      {"metadata",
       json::object{{"name", name},
                    {"namespace", "jhub"},
                    {"labels", labels},
                    {"annotations",
                     json::object{{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"}}},
                    {"ownerReferences", json::array{json::object{{"apiVersion", "apps/v1"},
                                                                 {"kind", "ReplicaSet"},
                                                                 {"name", "rs-" + name},
                                                                 {"controller", true}}}}}},
      {"spec",
       json::object{
           {"nodeName", on},
           {"containers",
            json::array{json::object{
                {"name", "worker"},
                {"resources",
                 json::object{{"requests", json::object{{"cpu", "1"}, {"memory", "4Gi"}}}}}}}}}}};
}

// n1 holds one worker, n2 four: n1's worker joins n2's.
json::object scenario(bool opted_in) {
  json::array pods{worker("a", "n1", opted_in)};
  json::array rs{json::object{{"metadata", json::object{{"name", "rs-a"}, {"namespace", "jhub"}}}}};
  for (const char* name : {"b0", "b1", "b2", "b3"}) {
    pods.push_back(worker(name, "n2", opted_in));
    rs.push_back(json::object{
        {"metadata", json::object{{"name", std::string("rs-") + name}, {"namespace", "jhub"}}}});
  }
  return json::object{
      {"nodes", json::array{node("n1"), node("n2")}},
      {"pods", pods},
      {"replicaSets", rs},
      {"nodeGroups", json::array{json::object{{"name", "workers"},
                                              {"minSize", 0},
                                              {"maxSize", 10},
                                              {"nodes", json::array{"n1", "n2"}}}}}};
}

json::value moves_of(const json::object& doc) {
  CliRun r = run_cli({"moves"}, json::serialize(doc));
  EXPECT_EQ(r.code, kOk) << r.err;
  return json::parse(r.out);
}

TEST(MovesCli, AnOptedInWorkerJoinsTheOthersAndItsNodeEmpties) {
  const json::value plan = moves_of(scenario(true));
  EXPECT_EQ(json::serialize(plan),
            R"({"moves":[{"node":"n1","pods":[{"pod":"jhub/a","to":"n2"}]}],"pending":0})");
}

// A move onto an empty node cluster-autoscaler removes anyway saves nothing:
// n3, empty, is no target; n2's workers are.
TEST(MovesCli, NoWorkerGoesToANodeClusterAutoscalerRemovesAnyway) {
  json::object doc = scenario(true);
  doc["nodes"].as_array().push_back(node("n3"));
  doc["nodeGroups"].as_array()[0].as_object()["nodes"].as_array().push_back("n3");
  EXPECT_EQ(json::serialize(moves_of(doc)),
            R"({"moves":[{"node":"n1","pods":[{"pod":"jhub/a","to":"n2"}]}],"pending":0})");
  // Alone with an empty node, the worker stays: either node would go, not both.
  json::object alone = doc;
  json::array pods{doc["pods"].as_array()[0]};
  alone["pods"] = pods;
  alone["nodes"] = json::array{node("n1"), node("n3")};
  alone["nodeGroups"].as_array()[0].as_object()["nodes"] = json::array{"n1", "n3"};
  EXPECT_EQ(moves_of(alone).at("moves").as_array().size(), 0u) << json::serialize(moves_of(alone));
}

// A node cluster-autoscaler would drain by evicting its workers is a target:
// filling it empties another node and spares them. n2's worker is
// evictable (no safe-to-evict annotation), n1's protected and opted in; both
// half used, so cluster-autoscaler would evict n2's onto n1.
TEST(MovesCli, ANodeClusterAutoscalerWouldDrainByEvictionTakesReplacements) {
  json::object doc = scenario(true);
  json::array pods;
  for (const char* name : {"a", "b"}) {
    json::object w = worker(name, name[0] == 'a' ? "n1" : "n2", name[0] == 'a');
    if (name[0] == 'b') w["metadata"].as_object()["annotations"].as_object().clear();
    w["spec"].as_object()["containers"].as_array()[0].as_object()["resources"] =
        json::object{{"requests", json::object{{"cpu", "4"}, {"memory", "4Gi"}}}};
    pods.push_back(std::move(w));
  }
  doc["pods"] = pods;
  doc["replicaSets"] = json::array{
      json::object{{"metadata", json::object{{"name", "rs-a"}, {"namespace", "jhub"}}}},
      json::object{{"metadata", json::object{{"name", "rs-b"}, {"namespace", "jhub"}}}}};
  doc["moves"] = json::object{{"maxUsePercent", 50}};
  EXPECT_EQ(json::serialize(moves_of(doc)),
            R"({"moves":[{"node":"n1","pods":[{"pod":"jhub/a","to":"n2"}]}],"pending":0})");
}

TEST(MovesCli, OnlyOptedInWorkersMoveUnlessAllAreAllowed) {
  EXPECT_EQ(moves_of(scenario(false)).at("moves").as_array().size(), 0u);
  json::object all = scenario(false);
  all["moves"] = json::object{{"workers", "all"}};
  EXPECT_EQ(moves_of(all).at("moves").as_array().size(), 1u);
  json::object none = scenario(true);
  none["moves"] = json::object{{"maxMoves", 0}};
  EXPECT_EQ(moves_of(none).at("moves").as_array().size(), 0u);
  // The worker asks for an eighth of n1 (12.5 %).
  json::object full = scenario(true);
  full["moves"] = json::object{{"maxUsePercent", 13}};
  EXPECT_EQ(moves_of(full).at("moves").as_array().size(), 1u);
  full["moves"] = json::object{{"maxUsePercent", 12}};
  EXPECT_EQ(moves_of(full).at("moves").as_array().size(), 0u);
}

TEST(MovesCli, BadValuesAreNamed) {
  const std::pair<json::value, const char*> cases[] = {
      {json::object{{"maxMoves", -1}}, "$.moves.maxMoves: -1 is not a whole number, 0 or more"},
      {json::object{{"maxUsePercent", 101}},
       "$.moves.maxUsePercent: 101 is not a whole number from 0 to 100"},
      {json::object{{"workers", "some"}},
       R"($.moves.workers: "some" is not one of "opted-in", "all")"},
      {json::object{{"profile", "nope"}}, "$.moves.profile: unknown profile"},
      {json::object{{"speed", 1}}, "$.moves.speed: unknown field"},
      {json::array{}, "$.moves: [] is not an object"},
  };
  for (const auto& [moves, message] : cases) {
    json::object doc = scenario(true);
    doc["moves"] = moves;
    const std::string error = moves_of(doc).at("error").as_string().c_str();
    EXPECT_NE(error.find(message), std::string::npos) << error;
  }
  CliRun r = run_cli({"moves"}, R"({"nodes": 3})");
  EXPECT_EQ(r.code, kOk);
  EXPECT_NE(r.out.find("$.nodes"), std::string::npos) << r.out;
}

// The daemon's moves: their options are checked before anything starts.
TEST(MovesCli, ScheduleChecksTheMoveOptionsBeforeStarting) {
  const std::string root = TIGHTPACK_SOURCE_DIR;
  const std::string config = root + "/config/tightpack.yaml";
  const std::string pools = root + "/examples/forecast/pools.yaml";
  CliRun r = run_cli({"schedule", "--config", config, "--move-dask-workers"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--move-dask-workers needs --pools"), std::string::npos) << r.err;
  r = run_cli({"schedule", "--config", config, "--move-interval", "1m"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--move-interval needs --move-dask-workers"), std::string::npos) << r.err;
  r = run_cli({"schedule", "--config", config, "--pools", pools, "--move-dask-workers",
               "--move-drain-timeout", "soon"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--move-drain-timeout \"soon\" is not a duration"), std::string::npos)
      << r.err;
  r = run_cli({"schedule", "--config", config, "--move-rest", "1m"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--move-rest needs --move-dask-workers"), std::string::npos) << r.err;
  r = run_cli({"schedule", "--config", config, "--pools", pools, "--move-dask-workers",
               "--move-interval", "500ms"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--move-interval \"500ms\" is not a duration of at least 1s"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace tightpack::cli
