// InterPodAffinity, each case worked out by hand from kube-scheduler
// v1.37.2's plugin (pkg/scheduler/framework/plugins/interpodaffinity:
// filtering.go, scoring.go) and checked against kube-scheduler-reference.
#include "tightpack/plugins/inter_pod_affinity.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/replay.hpp"
#include "tightpack/simulate.hpp"

namespace tightpack {
namespace {

namespace json = boost::json;
using testing::json_of;

// Three nodes: a and b in zone z1, c in z2; 4 cpus each.
std::string node(const char* name, const char* zone) {
  std::string labels = std::string(R"("kubernetes.io/hostname": ")") + name + "\"";
  if (zone) labels += std::string(R"(, "topology.kubernetes.io/zone": ")") + zone + "\"";
  return std::string(R"({"metadata": {"name": ")") + name + R"(", "labels": {)" + labels +
         R"(}}, "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"}}})";
}
const std::string kNodes = node("a", "z1") + "," + node("b", "z1") + "," + node("c", "z2");

std::string bound(const char* name, const char* node_name, const char* labels,
                  const char* affinity = "", const char* ns = "default", int priority = 0) {
  std::string spec = std::string(R"("nodeName": ")") + node_name + R"(", "priority": )" +
                     std::to_string(priority) +
                     R"(, "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}])";
  if (*affinity) spec += std::string(R"(, "affinity": )") + affinity;
  return std::string(R"({"metadata": {"name": ")") + name + R"(", "namespace": ")" + ns +
         R"(", "labels": )" + labels + R"(}, "spec": {)" + spec + "}}";
}

std::string incoming(const char* labels, const char* affinity, int priority = 0,
                     const char* extra = "") {
  return std::string(R"({"metadata": {"name": "p", "labels": )") + labels +
         R"(}, "spec": {"priority": )" + std::to_string(priority) +
         R"(, "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}], )" +
         R"("affinity": )" + affinity + "}" + extra + "}";
}

json::object run(const std::string& pods, const std::string& in, const std::string& extra = "",
                 const std::string& nodes = kNodes) {
  const std::string scenario = R"({"profile": "default", "nodes": [)" + nodes + R"(], "pods": [)" +
                               pods + R"(], "incoming": [)" + in + "]" + extra + "}";
  json::value v = json_of(replay_text(scenario));
  EXPECT_TRUE(v.as_object().contains("results")) << json::serialize(v);
  return v.at("results").at(0).as_object();
}

std::string verdict(const json::object& r, const char* node) {
  const json::value& f = r.at("filter").at(node);
  return f.is_string() ? std::string(f.as_string()) : std::string(f.at(0).as_string());
}

int64_t score(const json::object& r, const char* node) {
  const json::object& s = r.at("scores").at(node).as_object();
  return s.contains("InterPodAffinity") ? s.at("InterPodAffinity").as_int64() : -1;
}

constexpr const char* kRequiredToDb =
    R"({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "topology.kubernetes.io/zone"}]}})";

TEST(InterPodAffinity, RequiredAffinityNeedsAMatchingPodInTheNodesDomain) {
  auto r = run(bound("db", "a", R"({"app": "db"})"), incoming(R"({"app": "web"})", kRequiredToDb));
  EXPECT_EQ(verdict(r, "a"), "ok");
  EXPECT_EQ(verdict(r, "b"), "ok");  // same zone as the db pod
  EXPECT_EQ(verdict(r, "c"), "node(s) didn't match pod affinity rules");
  EXPECT_EQ(r.at("filterPlugin").at("c").as_string(), "InterPodAffinity");
}

TEST(InterPodAffinity, TheFirstPodOfASelfAffineGroupGoesAnywhereWithTheKey) {
  // No pod matches; the pod matches its own term: every node with the
  // topology key passes, a node without it does not.
  const std::string nodes = kNodes + "," + node("d", nullptr);
  const char* self = R"({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
      {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "topology.kubernetes.io/zone"}]}})";
  auto r =
      run(bound("x", "a", R"({"app": "other"})"), incoming(R"({"app": "db"})", self), "", nodes);
  EXPECT_EQ(verdict(r, "a"), "ok");
  EXPECT_EQ(verdict(r, "c"), "ok");
  EXPECT_EQ(verdict(r, "d"), "node(s) didn't match pod affinity rules");
  // A pod that does not match its own term finds no first place: "0/4 ...
  // didn't match pod affinity rules", and preemption cannot help.
  r = run(bound("x", "a", R"({"app": "other"})"), incoming(R"({"app": "web"})", self), "", nodes);
  EXPECT_EQ(r.at("message").as_string(),
            "0/4 nodes are available: 4 node(s) didn't match pod affinity rules. preemption: 0/4 "
            "nodes are "
            "available: 4 Preemption is not helpful for scheduling.");
}

TEST(InterPodAffinity, RequiredAntiAffinityKeepsOffTheDomainsOfMatchingPods) {
  const char* anti = R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
      {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "topology.kubernetes.io/zone"}]}})";
  const std::string nodes = kNodes + "," + node("d", nullptr);
  auto r =
      run(bound("db", "a", R"({"app": "db"})"), incoming(R"({"app": "web"})", anti), "", nodes);
  EXPECT_EQ(verdict(r, "a"), "node(s) didn't match pod anti-affinity rules");
  EXPECT_EQ(verdict(r, "b"), "node(s) didn't match pod anti-affinity rules");
  EXPECT_EQ(verdict(r, "c"), "ok");
  EXPECT_EQ(verdict(r, "d"), "ok");  // no zone: no domain to share
}

TEST(InterPodAffinity, BoundPodsAntiAffinityRejectsTheirDomainOnlyForPodsItSelects) {
  const char* placeholder =
      R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
      {"labelSelector": {"matchLabels": {"app": "user"}}, "topologyKey": "kubernetes.io/hostname"}]}})";
  const std::string pods = bound("ph", "a", R"({"app": "ph"})", placeholder);
  auto r = run(pods, incoming(R"({"app": "user"})", "{}"));
  EXPECT_EQ(verdict(r, "a"), "node(s) didn't satisfy existing pods anti-affinity rules");
  EXPECT_EQ(verdict(r, "b"), "ok");
  // The term names no namespace and no selector: only its holder's
  // namespace, which the incoming pod is not in.
  r = run(bound("ph", "a", R"({"app": "ph"})", placeholder, "jhub"),
          incoming(R"({"app": "user"})", "{}"));
  EXPECT_EQ(verdict(r, "a"), "ok");
}

TEST(InterPodAffinity, NamespaceSelectorsReadTheNamespacesLabels) {
  const char* by_team = R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
      {"labelSelector": {}, "namespaceSelector": {"matchLabels": {"team": "a"}},
       "topologyKey": "kubernetes.io/hostname"}]}})";
  const std::string pods = bound("ph", "a", R"({"app": "ph"})", by_team, "jhub");
  // The incoming pod's namespace (default) is listed with team a.
  auto r = run(pods, incoming(R"({"app": "user"})", "{}"),
               R"(, "namespaces": [{"metadata": {"name": "default", "labels": {"team": "a"}}}])");
  EXPECT_EQ(verdict(r, "a"), "node(s) didn't satisfy existing pods anti-affinity rules");
  // Not listed: it exists with its name label alone, which team=a does not select.
  r = run(pods, incoming(R"({"app": "user"})", "{}"));
  EXPECT_EQ(verdict(r, "a"), "ok");
  // kubernetes.io/metadata.name is on every namespace, listed or not.
  const char* by_name = R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
      {"labelSelector": {}, "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "default"}},
       "topologyKey": "kubernetes.io/hostname"}]}})";
  r = run(bound("ph", "a", R"({"app": "ph"})", by_name, "jhub"),
          incoming(R"({"app": "user"})", "{}"));
  EXPECT_EQ(verdict(r, "a"), "node(s) didn't satisfy existing pods anti-affinity rules");
}

TEST(InterPodAffinity, ANegativeNamespaceSelectorTakesInEveryNamespaceBeforeV137) {
  // v1.36 merged the selected namespaces into a copy of the term, kept the
  // selector and matched it against no labels: DoesNotExist selects every
  // namespace (kubernetes#138198 fixed it in v1.37).
  const char* anti = R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
      {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname",
       "namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]}}]}})";
  const std::string pods = bound("db", "a", R"({"app": "db"})", "", "other");
  const std::string namespaces =
      R"(, "namespaces": [{"metadata": {"name": "other", "labels": {"team": "a"}}}])";
  for (const char* release : {"v1.37", "v1.36"}) {
    const std::string scenario = std::string(R"({"profile": {"name": "default", "release": ")") +
                                 release + R"("}, "nodes": [)" + kNodes + R"(], "pods": [)" + pods +
                                 R"(], "incoming": [)" + incoming(R"({"app": "web"})", anti) + "]" +
                                 namespaces + "}";
    json::value v = json_of(replay_text(scenario));
    EXPECT_EQ(
        verdict(v.at("results").at(0).as_object(), "a"),
        std::string(release) == "v1.36" ? "node(s) didn't match pod anti-affinity rules" : "ok")
        << release;
  }
}

TEST(InterPodAffinity, PreferredTermsScoreDomainsNormalisedBetweenLowestAndHighest) {
  // Incoming: prefers zone of app=db (weight 50), avoids hosts of app=batch
  // (weight 100). db on a (z1); batch on b. Raw: a 50, b 50 − 100 = −50,
  // c 0. Normalised 100·(raw − min)/(max − min): a 100, b 0, c 50; the
  // default profile weighs InterPodAffinity 2.
  const char* prefs = R"({"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "db"}},
                                           "topologyKey": "topology.kubernetes.io/zone"}}]},
      "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "batch"}},
                                            "topologyKey": "kubernetes.io/hostname"}}]}})";
  auto r =
      run(bound("db", "a", R"({"app": "db"})") + "," + bound("batch", "b", R"({"app": "batch"})"),
          incoming(R"({"app": "web"})", prefs));
  EXPECT_EQ(score(r, "a"), 200);
  EXPECT_EQ(score(r, "b"), 0);
  EXPECT_EQ(score(r, "c"), 100);
}

TEST(InterPodAffinity, BoundPodsRequiredAffinityScoresWithHardPodAffinityWeight) {
  // A bound pod on c requires app=web in its zone: that adds
  // hardPodAffinityWeight (1 by default) to z2 for an app=web pod. Raw: a 0,
  // b 0, c 1; normalised c 100, weighted 200. With the weight set to 0 no
  // term matches and PreScore skips: the plugin gives no score at all.
  const char* wants_web = R"({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
      {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "topology.kubernetes.io/zone"}]}})";
  const std::string pods = bound("cache", "c", R"({"app": "cache"})", wants_web);
  auto r = run(pods, incoming(R"({"app": "web"})", "{}"));
  EXPECT_EQ(score(r, "a"), 0);
  EXPECT_EQ(score(r, "c"), 200);
  const std::string scenario = R"({"profile": {"name": "default", "schedulerConfig": {
      "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
      "profiles": [{"pluginConfig": [{"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 0}}]}]}},
      "nodes": [)" + kNodes + R"(], "pods": [)" +
                               pods + R"(], "incoming": [)" + incoming(R"({"app": "web"})", "{}") +
                               "]}";
  json::value v = json_of(replay_text(scenario));
  EXPECT_EQ(score(v.at("results").at(0).as_object(), "c"), -1);
}

TEST(InterPodAffinity, NodePlaceholdersTakeOneNodeEach) {
  // 2i2c's node-placeholder: replicas with required hostname anti-affinity
  // among themselves. Three land on a, b, c; the fourth fits nowhere, and
  // evicting its equals cannot help.
  const char* spread = R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
      {"labelSelector": {"matchLabels": {"app": "ph"}}, "topologyKey": "kubernetes.io/hostname"}]}})";
  const std::string scenario = R"({"profile": "default", "nodes": [)" + kNodes +
                               R"(], "incoming": [)" +
                               incoming(R"({"app": "ph"})", spread, 0, R"(, "replicas": 4)") + "]}";
  json::value v = json_of(replay_text(scenario));
  const json::array& results = v.at("results").as_array();
  ASSERT_EQ(results.size(), 4u);
  std::set<std::string> placed;
  for (size_t i = 0; i < 3; ++i) placed.insert(std::string(results[i].at("chosen").as_string()));
  EXPECT_EQ(placed, (std::set<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(results[3].at("chosen").is_null());
  EXPECT_EQ(results[3].at("message").as_string(),
            "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: "
            "0/3 nodes are "
            "available: 3 No preemption victims found for incoming pod.");
}

TEST(InterPodAffinity, PreemptionTakesOffTheVictimsItsTermsSee) {
  // One node holds a low-priority batch pod; the incoming pod (priority 100)
  // keeps off hosts with batch pods. Evicting the batch pod makes room:
  // RemovePod takes it out of the anti-affinity counts.
  const char* anti = R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
      {"labelSelector": {"matchLabels": {"app": "batch"}}, "topologyKey": "kubernetes.io/hostname"}]}})";
  auto r = run(bound("batch", "a", R"({"app": "batch"})"), incoming(R"({"app": "web"})", anti, 100),
               "", node("a", "z1"));
  EXPECT_EQ(r.at("message").as_string(),
            "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. preemption: "
            "found a "
            "potential placement for pod on node a, preempting 1 victims");
  // A bound pod of higher priority stays, so nothing can be done.
  r = run(bound("batch", "a", R"({"app": "batch"})", "", "default", 1000),
          incoming(R"({"app": "web"})", anti, 100), "", node("a", "z1"));
  EXPECT_EQ(r.at("message").as_string(),
            "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. preemption: "
            "0/1 nodes are "
            "available: 1 No preemption victims found for incoming pod.");
}

TEST(InterPodAffinity, PodsWithoutTermsAreNotScoredByIt) {
  auto r = run(bound("x", "a", R"({"app": "x"})"), incoming(R"({"app": "web"})", "{}"));
  EXPECT_EQ(score(r, "a"), -1);  // PreScore skips: nothing to say
}

// The first count of a pod whose terms all require In on one label key
// reads the cluster's label index (only the pods it lists and those with
// terms); a count brought up to date node by node walks every pod. Random
// clusters, counted both ways: the same verdicts and scores on every node.
TEST(InterPodAffinityCounts, TheLabelIndexCountEqualsTheNodeByNodeCount) {
  std::mt19937 rng(20261202);
  auto pick = [&](std::initializer_list<const char*> from) {
    return *(from.begin() + std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng));
  };
  auto coin = [&](int percent) { return std::uniform_int_distribution<int>(0, 99)(rng) < percent; };
  auto selector = [&] {
    std::string s = R"({"matchExpressions": [)";
    const char* op = pick({"In", "In", "In", "NotIn", "Exists"});
    s += std::string(R"({"key": ")") + pick({"app", "tier"}) + R"(", "operator": ")" + op + "\"";
    if (std::string(op) != "Exists")
      s += std::string(R"(, "values": [")") + pick({"a", "b", "c"}) + R"(", "b"])";
    s += "}";
    if (coin(30))
      s += std::string(R"(, {"key": "tier", "operator": "In", "values": [")") + pick({"x", "y"}) +
           "\"]}";
    return s + "]}";
  };
  auto term = [&] {
    return std::string(R"({"labelSelector": )") + selector() + R"(, "topologyKey": ")" +
           pick({"kubernetes.io/hostname", "topology.kubernetes.io/zone"}) + "\"}";
  };
  auto weighted = [&] {
    return std::string(R"({"weight": )") + pick({"1", "5", "50"}) + R"(, "podAffinityTerm": )" +
           term() + "}";
  };
  auto terms = [&] {
    std::string kinds[2];
    for (int k = 0; k < 2; ++k) {
      std::string required, preferred;
      if (coin(50)) required = term();
      if (coin(40)) preferred = weighted();
      kinds[k] = std::string(R"({"requiredDuringSchedulingIgnoredDuringExecution": [)") + required +
                 R"(], "preferredDuringSchedulingIgnoredDuringExecution": [)" + preferred + "]}";
    }
    return std::string(R"({"podAffinity": )") + kinds[0] + R"(, "podAntiAffinity": )" + kinds[1] +
           "}";
  };
  auto labels = [&] {
    std::string l = "{";
    if (coin(80)) l += std::string(R"("app": ")") + pick({"a", "b", "c"}) + "\"";
    if (coin(50))
      l += std::string(l.size() > 1 ? ", " : "") + R"("tier": ")" + pick({"x", "y"}) + "\"";
    return l + "}";
  };
  const Profile profile = default_profile();
  for (int round = 0; round < 400; ++round) {
    std::vector<Node> nodes;
    for (const char* name : {"a", "b", "c", "d", "e", "f"}) {
      nodes.push_back(
          testing::node_from_json(node(name, coin(85) ? pick({"z1", "z2", "z3"}) : nullptr)));
    }
    std::vector<Pod> pods;
    for (int i = 0; i < 12; ++i) {
      const std::string name = "p" + std::to_string(i);
      const std::string affinity = coin(25) ? terms() : "";
      pods.push_back(testing::pod_from_json(
          bound(name.c_str(), pick({"a", "b", "c", "d", "e", "f"}), labels().c_str(),
                affinity.c_str(), pick({"default", "other"}))));
    }
    const Pod in = testing::pod_from_json(incoming(labels().c_str(), terms().c_str()));
    const auto own = affinity_terms(in);
    if (!own) continue;
    auto full = Cluster::build(nodes, pods, ApiObjects{});
    auto empty = Cluster::build(nodes, std::vector<Pod>{}, ApiObjects{});
    ASSERT_TRUE(full && empty);
    const plugins::InterPodAffinityState state{
        own, std::make_shared<const PodMeta>(PodMeta{in.ns, in.labels, false}),
        profile.inter_pod_affinity, true, true};
    plugins::AffinityCounts indexed(*full, state);
    plugins::AffinityCounts walked(*empty, state);
    for (const Pod& p : pods) {
      auto plan = PodPlan::make(*empty, profile, p);
      ASSERT_TRUE(plan) << plan.error().what();
      empty->place(empty->find(p.node_name), plan->bound(p.key()));
    }
    walked.sync(*empty);
    std::vector<NodeIndex> all;
    for (NodeIndex n = 0; n < full->size(); ++n) {
      uint8_t why_indexed = 9, why_walked = 9;
      EXPECT_EQ(indexed.admits(*full, n, nullptr, why_indexed),
                walked.admits(*empty, n, nullptr, why_walked))
          << "round " << round << " node " << full->name(n);
      EXPECT_EQ(why_indexed, why_walked) << "round " << round;
      all.push_back(n);
    }
    EXPECT_EQ(indexed.score_skipped(), walked.score_skipped()) << "round " << round;
    std::vector<int64_t> scores_indexed, scores_walked;
    indexed.normalised_scores(all, scores_indexed);
    walked.normalised_scores(all, scores_walked);
    EXPECT_EQ(scores_indexed, scores_walked) << "round " << round;
  }
}

TEST(InterPodAffinityDecode, BadTermsNameTheField) {
  auto err = [](const char* affinity) {
    auto p =
        decode_pod(json_of(std::string(R"({"metadata": {"name": "p"}, "spec": {"affinity": )") +
                           affinity + "}}"),
                   JsonPath());
    return p ? std::string() : p.error().what();
  };
  EXPECT_EQ(
      err(R"({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {}}]}})"),
      "$.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
      "a pod "
      "affinity term needs a topology key");
  EXPECT_EQ(err(R"({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                 {"topologyKey": "zone", "labelSelector": {"matchExpressions": [
                   {"key": "app", "operator": "Equals", "values": ["x"]}]}}]}})"),
            "$.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
            "labelSelector."
            "matchExpressions[0].operator: \"Equals\" is not a valid selector operator (In, NotIn, "
            "Exists, "
            "DoesNotExist)");
  EXPECT_EQ(err(R"({"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                 {"weight": 0, "podAffinityTerm": {"topologyKey": "zone"}}]}})"),
            "$.spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight:"
            " 0 is not in the "
            "range 1-100");
  EXPECT_EQ(err(R"({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                 {"topologyKey": "bad key!"}]}})"),
            "$.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
            "topologyKey: \"bad key!\" "
            "is not a valid label key: must begin and end with a letter or digit");
}

TEST(InterPodAffinityArgs, DecodedAndValidated) {
  auto decode = [](const char* args) {
    return decode_scheduler_configuration(
        json_of(
            std::string(
                R"({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"pluginConfig": [{"name": "InterPodAffinity", "args": )") +
            args + "}]}]}"),
        JsonPath());
  };
  auto c = decode(R"({"hardPodAffinityWeight": 7, "ignorePreferredTermsOfExistingPods": true})");
  ASSERT_TRUE(c) << c.error().what();
  EXPECT_EQ(c->profiles[0].inter_pod_affinity.hard_pod_affinity_weight, 7);
  EXPECT_TRUE(c->profiles[0].inter_pod_affinity.ignore_preferred_terms_of_existing_pods);
  c = decode("{}");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->profiles[0].inter_pod_affinity.hard_pod_affinity_weight, 1);
  c = decode(R"({"hardPodAffinityWeight": 101})");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().what(),
            "$.profiles[0].pluginConfig[0].args.hardPodAffinityWeight: 101 is not in the valid "
            "range [0, 100]");
}

}  // namespace
}  // namespace tightpack
