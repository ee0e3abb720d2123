// The packing report, with this project's seed scenario: after a busy
// afternoon everyone leaves, then two users start ten 1-cpu workers each on
// twenty 8-cpu nodes. kube-scheduler's default profile spreads them over
// twenty nodes, none of which the autoscaler can then remove; packing needs
// three.
#include "tightpack/packing/pack_report.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_util.hpp"

namespace tightpack::packing {
namespace {

namespace json = boost::json;
using testing::json_of;

json::object worker_pod(const std::string& cluster, const char* cpu = "1") {
  return json::object{
      {"metadata", json::object{{"name", "worker"},
                                {"labels", json::object{{"dask.org/cluster-name", cluster}}}}},
      {"spec",
       json::object{
           {"containers",
            json::array{json::object{
                {"name", "worker"},
                {"image", "ghcr.io/dask/dask:2024.1.0"},
                {"resources",
                 json::object{{"requests", json::object{{"cpu", cpu}, {"memory", "1Gi"}}}}}}}}}}};
}

json::object node(const std::string& name, const char* cpu = "8") {
  return json::object{
      {"metadata",
       json::object{{"name", name},
                    {"labels", json::object{{"kubernetes.io/hostname", name},
                                            {"cloud.google.com/gke-nodepool", "dask-workers"}}}}},
      {"status", json::object{{"allocatable",
                               json::object{{"cpu", cpu}, {"memory", "32Gi"}, {"pods", "110"}}}}}};
}

std::string minutes(int m) {
  return std::to_string(m) + "m";
}

// 20 worker nodes of exactly 8 allocatable cpus; user u starts 10 workers at
// minute u and stops them at minute u + 15 (so at most 150 of 160 cpus are
// asked for at once); at minute 200 alice and bob start 10 workers each.
json::object seed_scenario() {
  json::array nodes;
  for (int i = 0; i < 20; ++i)
    nodes.push_back(node("worker-" + std::string(i < 10 ? "0" : "") + std::to_string(i)));
  json::array events;
  for (int u = 0; u < 100; ++u) {
    const std::string user = "user-" + std::to_string(u);
    events.push_back(json::object{
        {"at", minutes(u)}, {"start", user}, {"replicas", 10}, {"pod", worker_pod(user)}});
    events.push_back(json::object{{"at", minutes(u + 15)}, {"stop", user}});
  }
  for (const char* user : {"alice", "bob"}) {
    events.push_back(json::object{
        {"at", minutes(200)}, {"start", user}, {"replicas", 10}, {"pod", worker_pod(user)}});
  }
  return json::object{{"cluster", json::object{{"nodes", std::move(nodes)}}},
                      {"events", std::move(events)}};
}

PackReport report_of(const json::value& doc) {
  auto s = decode_pack_scenario(doc);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().what());
  auto r = run_pack_report(*s);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what());
  return std::move(*r);
}

TEST(PackReport, SeedScenarioDefaultSpreadsOverTwentyNodesPackingNeedsThree) {
  PackReport r = report_of(seed_scenario());
  ASSERT_EQ(r.profiles.size(), 3u);
  const ProfileFigures& def = r.profiles[0];
  const ProfileFigures& z2jh = r.profiles[1];
  const ProfileFigures& tp = r.profiles[2];
  EXPECT_EQ(def.scheduler_name, "default-scheduler");
  EXPECT_EQ(z2jh.scheduler_name, "jupyterhub-user-scheduler");
  EXPECT_EQ(tp.scheduler_name, "tightpack");
  EXPECT_EQ(def.busy_at_end, 20);
  EXPECT_EQ(z2jh.busy_at_end, 3);
  EXPECT_EQ(tp.busy_at_end, 3);
  for (const ProfileFigures& f : r.profiles) {
    SCOPED_TRACE(f.profile);
    EXPECT_EQ(f.lower_bound, 3);  // 20 cpus over nodes of 8
    EXPECT_EQ(f.pending_at_end, 0);
    ASSERT_EQ(f.pools.size(), 1u);
    EXPECT_EQ(f.pools[0].pool, "dask-workers");  // inferred from the GKE label
    EXPECT_EQ(f.pools[0].nodes_at_end, 20);
  }
  // While fifteen users overlap every profile needs most nodes; packing
  // still keeps fewer busy over the afternoon.
  EXPECT_EQ(def.peak_busy, 20);
  EXPECT_LT(z2jh.busy_node_hours, def.busy_node_hours);
  EXPECT_LE(tp.busy_node_hours, z2jh.busy_node_hours);
}

TEST(PackReport, WaitingPodsRunWhenRoomFrees) {
  json::array nodes{node("only", "4")};
  json::array events{
      json::object{{"at", "0s"}, {"start", "a"}, {"replicas", 4}, {"pod", worker_pod("a")}},
      json::object{{"at", "1m"}, {"start", "b"}, {"replicas", 2}, {"pod", worker_pod("b")}},
      json::object{{"at", "2m"}, {"scale", "a"}, {"replicas", 3}},
      json::object{{"at", "3m"}, {"stop", "b"}}};
  json::object s{{"cluster", json::object{{"nodes", nodes}}},
                 {"events", events},
                 {"profiles", json::array{"tightpack"}}};
  PackReport r = report_of(s);
  ASSERT_EQ(r.profiles.size(), 1u);
  // b's second worker waited from minute 1 and ran at minute 2; b left at 3.
  EXPECT_EQ(r.profiles[0].pending_at_end, 0);
  EXPECT_EQ(r.profiles[0].busy_at_end, 1);
  EXPECT_EQ(r.profiles[0].lower_bound, 1);
  s["end"] = "1h3m";
  r = report_of(s);
  EXPECT_DOUBLE_EQ(r.profiles[0].busy_node_hours, 63.0 / 60.0);

  // Nothing frees room: one of b's workers is still waiting at the end.
  events.pop_back();
  events.pop_back();
  json::object stuck{{"cluster", json::object{{"nodes", nodes}}},
                     {"events", events},
                     {"profiles", json::array{"default"}}};
  EXPECT_EQ(report_of(stuck).profiles[0].pending_at_end, 2);
}

json::object pinned_worker(const std::string& cluster, const std::string& node) {
  json::object p = worker_pod(cluster);
  p["spec"].as_object()["nodeSelector"] = json::object{{"kubernetes.io/hostname", node}};
  return p;
}

// Eleven nodes n-00 … n-10, joined in that order: n-02's pods get
// 10.4.2.x and n-10's 10.4.10.x, and "tcp://10.4.2.…" sorts above
// "tcp://10.4.10.…" as distributed compares addresses, as strings.
int64_t busy_after_shrink(json::array events, const char* retire) {
  json::array nodes;
  for (int i = 0; i <= 10; ++i)
    nodes.push_back(node(std::string("n-") + (i < 10 ? "0" : "") + std::to_string(i)));
  json::object s{{"cluster", json::object{{"nodes", std::move(nodes)}}},
                 {"events", std::move(events)},
                 {"profiles", json::array{"tightpack"}},
                 {"retire", retire}};
  PackReport r = report_of(s);
  EXPECT_EQ(retire_name(r.retire), retire);
  return r.profiles.at(0).busy_at_end;
}

TEST(PackReport, RetireRulesChooseWhichWorkersLeave) {
  // x-0 and x-1 on n-02, x-2 on n-10; one leaves. The newest (x-2) empties
  // n-10; upstream takes the greatest address, x-1 on n-02, and empties
  // nothing; node-aware takes the node with fewest workers, n-10.
  json::array two_then_one{
      json::object{
          {"at", "0s"}, {"start", "x"}, {"replicas", 2}, {"pod", pinned_worker("x", "n-02")}},
      json::object{
          {"at", "1m"}, {"start", "x"}, {"replicas", 1}, {"pod", pinned_worker("x", "n-10")}},
      json::object{{"at", "2m"}, {"scale", "x"}, {"replicas", 2}}};
  EXPECT_EQ(busy_after_shrink(two_then_one, "newest"), 1);
  EXPECT_EQ(busy_after_shrink(two_then_one, "upstream"), 2);
  EXPECT_EQ(busy_after_shrink(two_then_one, "node-aware"), 1);

  // x-0 on n-02, x-1 … x-3 on n-10; one leaves: the newest keeps both nodes,
  // upstream's greatest address (n-02's) and node-aware empty n-02.
  json::array one_then_three{
      json::object{
          {"at", "0s"}, {"start", "x"}, {"replicas", 1}, {"pod", pinned_worker("x", "n-02")}},
      json::object{
          {"at", "1m"}, {"start", "x"}, {"replicas", 3}, {"pod", pinned_worker("x", "n-10")}},
      json::object{{"at", "2m"}, {"scale", "x"}, {"replicas", 3}}};
  EXPECT_EQ(busy_after_shrink(one_then_three, "newest"), 2);
  EXPECT_EQ(busy_after_shrink(one_then_three, "upstream"), 1);
  EXPECT_EQ(busy_after_shrink(one_then_three, "node-aware"), 1);

  // Another user's worker keeps n-02: node-aware leaves x-0 there and frees
  // n-10 of both of x's workers, where fewest-first would not.
  json::array kept{
      json::object{
          {"at", "0s"}, {"start", "y"}, {"replicas", 1}, {"pod", pinned_worker("y", "n-02")}},
      json::object{
          {"at", "0s"}, {"start", "x"}, {"replicas", 1}, {"pod", pinned_worker("x", "n-02")}},
      json::object{
          {"at", "1m"}, {"start", "x"}, {"replicas", 2}, {"pod", pinned_worker("x", "n-10")}},
      json::object{{"at", "2m"}, {"scale", "x"}, {"replicas", 1}}};
  EXPECT_EQ(busy_after_shrink(kept, "node-aware"), 1);

  // Replicas that wait for a node are not Dask workers yet: upstream's
  // scheduler retires a running one; the waiting one stays and later runs.
  json::array waiting{
      json::object{
          {"at", "0s"}, {"start", "x"}, {"replicas", 1}, {"pod", pinned_worker("x", "n-02")}},
      json::object{
          {"at", "30s"}, {"start", "x"}, {"replicas", 1}, {"pod", pinned_worker("x", "absent")}},
      json::object{{"at", "1m"}, {"scale", "x"}, {"replicas", 1}}};
  EXPECT_EQ(busy_after_shrink(waiting, "newest"), 1);
  EXPECT_EQ(busy_after_shrink(waiting, "upstream"), 0);
}

TEST(PackReport, BadScenariosNameTheField) {
  auto error_of = [](std::string_view text) {
    auto s = decode_pack_scenario(json_of(text));
    return s.ok() ? std::string("decoded") : s.error().what();
  };
  EXPECT_EQ(error_of(R"({"events": []})"), "$.cluster: the scenario needs a cluster");
  EXPECT_EQ(error_of(R"({"cluster": {"nodes": []}, "events": []})"),
            "$.cluster: the cluster has no nodes");
  const std::string base = R"({"cluster": {"nodes": [{"metadata": {"name": "n"}}]}, )";
  EXPECT_EQ(error_of(base + R"("events": [{"at": "soon", "stop": "a"}]})"),
            "$.events[0].at: invalid duration \"soon\" (use e.g. \"90s\", \"10m\", \"1h30m\")");
  EXPECT_EQ(error_of(base + R"("events": [{"stop": "a", "scale": "a", "replicas": 1}]})"),
            "$.events[0]: an event has exactly one of start, stop and scale");
  EXPECT_EQ(error_of(base + R"("events": [{"start": "a", "replicas": 1}]})"),
            "$.events[0].pod: a start event needs the pod to start");
  EXPECT_EQ(error_of(base + R"("events": [{"scale": "a", "replicas": -1}]})"),
            "$.events[0].replicas: replicas -1 is not in [0, 10000]");
  EXPECT_EQ(error_of(base + R"("profiles": ["spread"], "events": []})"),
            "$.profiles[0]: unknown profile \"spread\" (default, most-allocated, rtc, tightpack)");
  EXPECT_EQ(
      error_of(base + R"("events": [], "colour": 1})"),
      "$.colour: unknown field \"colour\" (known: cluster, pools, profiles, events, end, retire, "
      "consolidate)");
  EXPECT_EQ(error_of(base + R"("events": [{"at": "1h", "stop": "a"}], "end": "10m"})"),
            "$.end: end is before the last event");
  EXPECT_EQ(error_of(base + R"("events": [], "retire": "oldest"})"),
            "$.retire: retire \"oldest\" is not one of newest, upstream, node-aware");
  EXPECT_EQ(error_of(base + R"("events": [{"stop": "a", "retire": "upstream"}]})"),
            "$.events[0].retire: only a scale event retires workers");
}

}  // namespace
}  // namespace tightpack::packing
