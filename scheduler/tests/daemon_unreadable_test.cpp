// An object the daemon cannot decode: its key is still read for a deletion,
// and a bound pod's stand-in fills its node for every pod that asks for room,
// is never a preemption victim, and names only the field it stopped at.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "daemon/cache.hpp"
#include "daemon/object_store.hpp"
#include "daemon/unreadable.hpp"
#include "decision_by_name.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/framework/preemption.hpp"

namespace tightpack::daemon {
namespace {
namespace json = boost::json;
using tightpack::testing::decision_by_name;

autoscaler::CaNode node(const std::string& name, int cpu) {
  autoscaler::CaNode n;
  n.node.name = name;
  n.node.labels = {{"kubernetes.io/hostname", name}};
  n.node.allocatable = {{"cpu", cpu * 1000}, {"memory", int64_t(cpu) * (4LL << 30)}, {"pods", 110}};
  n.node.capacity = n.node.allocatable;
  return n;
}

Pod asking(int64_t millicores, int32_t priority = 0) {
  Pod p;
  p.ns = "jhub";
  p.name = "incoming";
  p.uid = "uid-incoming";
  p.priority = priority;
  Container c;
  c.name = "main";
  c.requests = {{"cpu", millicores}, {"memory", 1LL << 30}};
  p.containers.push_back(c);
  return p;
}

TEST(Unreadable, KeysAreReadWithoutDecoding) {
  // A pod whose resources no decoder reads: its key is there all the same.
  const json::value pod = json::parse(R"({"metadata": {"name": "p", "namespace": "jhub"},
      "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": {"x": 1}}}}]}})");
  EXPECT_EQ(*watched_key("Pod", pod), "jhub/p");
  EXPECT_EQ(*watched_key("Pod", json::parse(R"({"metadata": {"name": "p"}})")), "default/p");
  EXPECT_FALSE(watched_key("Pod", json::parse(R"({"metadata": {"name": 7}})")));
  EXPECT_FALSE(watched_key("Pod", json::parse("[]")));
  EXPECT_EQ(*watched_key("Node", json::parse(R"({"metadata": {"name": "n1"}, "status": 5})")),
            "n1");
  EXPECT_FALSE(watched_key("Node", json::parse(R"({"status": {}})")));
}

TEST(Unreadable, WhatIsReadOfAPodThatDoesNotDecode) {
  const json::value v = json::parse(R"({"metadata": {"name": "p", "namespace": "jhub",
      "uid": "u1", "deletionTimestamp": "2026-12-06T00:00:00Z"},
      "spec": {"nodeName": "n1", "schedulerName": ["not", "a", "string"]},
      "status": {"phase": "Running"}})");
  auto decoded = decode_pod(v, JsonPath());
  ASSERT_FALSE(decoded);
  auto u = read_unreadable_pod(v, decoded.error());
  ASSERT_TRUE(u);
  EXPECT_EQ(u->key(), "jhub/p");
  EXPECT_EQ(u->uid, "u1");
  EXPECT_EQ(u->node_name, "n1");
  EXPECT_EQ(u->scheduler_name, "");  // not a string: not read
  EXPECT_TRUE(u->deleting);
  EXPECT_TRUE(u->holds_node());
  EXPECT_EQ(u->path, "$.spec.schedulerName") << u->error;
  u->phase = "Succeeded";
  EXPECT_FALSE(u->holds_node());
}

TEST(Unreadable, TheStandInFillsItsNodeAndIsNoVictim) {
  ClusterCache cache;
  cache.replace_nodes({node("n-held", 8), node("n-free", 8)});
  UnreadablePod u;
  u.ns = "jhub";
  u.name = "hog";
  u.uid = "u-hog";
  u.node_name = "n-held";
  u.phase = "Running";
  u.path = "$.spec.containers[0].resources.limits.memory";
  u.error = u.path + R"(: invalid quantity "secret-value": …)";
  autoscaler::CaPod stand_in = filling_pod(u);
  EXPECT_EQ(stand_in.pod.key(), "jhub/hog");
  ASSERT_EQ(stand_in.pod.annotations.size(), 1u);
  EXPECT_EQ(stand_in.pod.annotations[0].second, "$.spec.containers[0].resources.limits.memory");
  cache.upsert_pod(stand_in);

  // A pod of any size goes elsewhere, as if the node were full.
  auto d = decision_by_name(cache.cluster(), asking(100));
  EXPECT_EQ(d["n-held"].find(" "), std::string::npos) << d["n-held"];  // filtered, no score
  EXPECT_NE(d["n-free"].find("top"), std::string::npos) << d["n-free"];

  // Alone, even the highest user priority cannot preempt it: nothing fits.
  cache.remove_node("n-free");
  const Pod urgent = asking(100, 1000000000);
  const Profile profile = default_profile();
  auto plan = PodPlan::make(cache.cluster(), profile, urgent);
  PlanScratch scratch;
  ASSERT_TRUE(plan);
  const Decision decision = decide(*plan, cache.cluster(), scratch);
  EXPECT_TRUE(decision.feasible.empty());
  EXPECT_NE(decision.message.find("Insufficient cpu"), std::string::npos) << decision.message;
  auto choice = select_preemption(*plan, cache.cluster(), scratch, decision, {});
  EXPECT_FALSE(choice) << "the stand-in was chosen as a victim";

  // Deleted by key, the room comes back.
  cache.remove_pod("jhub/hog");
  const Decision after = decide(*plan, cache.cluster(), scratch);
  EXPECT_EQ(after.feasible.size(), 1u) << after.message;
}

TEST(Unreadable, ManyStandInsOnOneNodeStillFillIt) {
  // Amounts add as Go's int64s do: at 2^62 a stand-in, three wrapped to room
  // (and twenty to none at all), so a user could make a node look empty.
  ClusterCache cache;
  cache.replace_nodes({node("n-held", 8), node("n-free", 8)});
  for (int count = 1; count <= 24; ++count) {
    UnreadablePod u;
    u.ns = "jhub";
    u.name = "hog-" + std::to_string(count);
    u.node_name = "n-held";
    u.phase = "Running";
    cache.upsert_pod(filling_pod(u));
    auto d = decision_by_name(cache.cluster(), asking(100));
    EXPECT_EQ(d["n-held"].find(" "), std::string::npos) << count << ": " << d["n-held"];
  }
}

}  // namespace
}  // namespace tightpack::daemon
