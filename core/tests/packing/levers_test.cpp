// The levers beyond a scheduler's reach, on a short day of the DaskHub day's
// pools (examples/advise/pools.yaml): workers tiled to their pool's node as
// `tightpack advise` suggests, and cluster-autoscaler's unneeded time.
#include "tightpack/packing/levers.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_util.hpp"

namespace tightpack::packing {
namespace {

namespace json = boost::json;
using testing::json_of;

json::object worker(const char* cpu, const char* memory) {
  return json::object{
      {"metadata", json::object{{"name", "worker"},
                                {"labels", json::object{{"dask.org/component", "worker"}}}}},
      {"spec",
       json::object{
           {"containers",
            json::array{json::object{
                {"name", "worker"},
                {"resources",
                 json::object{{"requests", json::object{{"cpu", cpu}, {"memory", memory}}}}}}}},
           {"tolerations", json::array{json::object{{"key", "dask"},
                                                    {"operator", "Equal"},
                                                    {"value", "worker"},
                                                    {"effect", "NoSchedule"}}}},
           {"nodeSelector", json::object{{"cloud.google.com/gke-nodepool", "dask-workers"}}}}}};
}

PackScenario day() {
  json::value doc = json_of(R"({
    "cluster": {"nodes": [{"metadata": {"name": "core-0", "labels": {
        "cloud.google.com/gke-nodepool": "core", "hub.jupyter.org/node-purpose": "core"}},
      "status": {"allocatable": {"cpu": "3920m", "memory": "12Gi", "pods": "110"}}}], "pods": []},
    "pools": {"apiVersion": "tightpack.io/v1alpha1", "kind": "NodePools", "inferPools": false,
      "pools": [
        {"name": "core", "minSize": 1, "maxSize": 3, "template": {
          "labels": {"cloud.google.com/gke-nodepool": "core"},
          "allocatable": {"cpu": "3920m", "memory": "12Gi", "pods": "110"}}},
        {"name": "dask-workers", "minSize": 0, "maxSize": 40, "template": {
          "labels": {"cloud.google.com/gke-nodepool": "dask-workers"},
          "taints": [{"key": "dask", "value": "worker", "effect": "NoSchedule"}],
          "allocatable": {"cpu": "7910m", "memory": "60Gi", "pods": "110"}}}]},
    "events": [], "end": "2h"})");
  json::array& events = doc.as_object()["events"].emplace_array();
  const char* cpus[] = {"1", "2", "4", "3950m"};
  for (int i = 0; i < 4; ++i) {
    const std::string group = "dask-" + std::to_string(i);
    events.push_back(json::object{{"at", std::to_string(10 * i) + "m"},
                                  {"start", group},
                                  {"replicas", 8},
                                  {"pod", worker(cpus[i], "4Gi")}});
    events.push_back(json::object{{"at", "90m"}, {"stop", group}});
  }
  auto s = decode_pack_scenario(doc);
  if (!s) ADD_FAILURE() << s.error().what();
  return std::move(*s);
}

TEST(Levers, WorkersAreTiledAsAdviseSuggests) {
  std::vector<TiledWorkload> tiled;
  auto s = tile_workloads(day(), tiled);
  ASSERT_TRUE(s) << s.error().what();
  // 3950m already fills the node two by two: left as it is.
  ASSERT_EQ(tiled.size(), 3u);
  EXPECT_EQ(tiled[0].group, "dask-0");
  EXPECT_EQ(tiled[0].pool, "dask-workers");
  EXPECT_EQ(*find_resource(tiled[0].after, "cpu"), 985);
  EXPECT_EQ(tiled[0].per_node_before, 7);
  EXPECT_EQ(tiled[0].per_node_after, 8);
  EXPECT_EQ(*find_resource(tiled[1].after, "cpu"), 1970);
  EXPECT_EQ(*find_resource(tiled[2].after, "cpu"), 3950);
  EXPECT_EQ(*find_resource(tiled[2].after, "memory"), 4LL << 30);
  // The shapes' share above the lower bound is gone, and no fewer workers run.
  auto before = run_pack_report(day());
  auto after = run_pack_report(*s);
  ASSERT_TRUE(before && after);
  for (size_t i = 0; i < after->profiles.size(); ++i) {
    const ProfileFigures& a = after->profiles[i];
    EXPECT_LT(a.node_hours, before->profiles[i].node_hours) << a.profile;
    EXPECT_EQ(a.pending_at_end, 0) << a.profile;
    for (const PoolFigures& p : a.pools) {
      if (p.pool == "dask-workers") {
        EXPECT_NEAR(p.repack_node_hours, p.lower_bound_node_hours, 0.05) << a.profile;
      }
    }
  }
}

TEST(Levers, AShorterUnneededTimeKeepsFewerNodeHours) {
  auto five = with_unneeded_time(day(), 300);
  ASSERT_TRUE(five);
  EXPECT_EQ(five->pools->scale_down_unneeded_seconds, 300);
  auto a = run_pack_report(day());
  auto b = run_pack_report(*five);
  ASSERT_TRUE(a && b);
  EXPECT_LT(b->profiles[2].node_hours, a->profiles[2].node_hours);
  PackScenario bare = day();
  bare.pools.reset();
  EXPECT_FALSE(with_unneeded_time(bare, 300));
  std::vector<TiledWorkload> tiled;
  auto none = tile_workloads(bare, tiled);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().what().find("needs the scenario's pools"), std::string::npos);
}

}  // namespace
}  // namespace tightpack::packing
