// The autoscaler with the cluster objects beyond nodes and pods: claims and
// volumes, storage classes, spread constraints and inter-pod terms, read by
// the same plugins as in kube-scheduler, as cluster-autoscaler's simulator
// runs them (PreFilter and Filter, no Reserve).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "tightpack/autoscaler/autoscaler.hpp"
#include "tightpack/autoscaler/scenario.hpp"

namespace tightpack::autoscaler {
namespace {

namespace json = boost::json;

json::object run(const json::value& scenario) {
  return json::parse(autoscale_text(json::serialize(scenario))).as_object();
}

// A node (or a group's template) with 4 cpus, 16Gi and the given labels.
json::value node(const std::string& name, json::object labels) {
  json::object meta{{"labels", std::move(labels)}};
  if (!name.empty()) meta["name"] = name;
  return json::object{
      {"metadata", std::move(meta)},
      {"status", {{"capacity", {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}}}}}};
}

json::value zone_template(const std::string& zone) {
  return node("", {{"topology.kubernetes.io/zone", zone}});
}

json::value empty_group(const std::string& name, json::value tmpl) {
  return json::object{{"name", name},
                      {"minSize", 0},
                      {"maxSize", 10},
                      {"nodes", json::array{}},
                      {"template", std::move(tmpl)}};
}

// A pod requesting `cpu`, in namespace "hub".
json::object pod(const std::string& name, const std::string& cpu) {
  return json::object{
      {"metadata", {{"name", name}, {"namespace", "hub"}}},
      {"spec",
       {{"containers", json::array{json::object{{"name", "c"},
                                                {"resources", {{"requests", {{"cpu", cpu}}}}}}}}}}};
}

void add_claim_volume(json::object& p, const std::string& claim) {
  p["spec"].as_object()["volumes"] = json::array{
      json::object{{"name", "home"}, {"persistentVolumeClaim", {{"claimName", claim}}}}};
}

json::value zone_affinity(const std::string& key, const std::string& zone) {
  return json::object{
      {"required",
       {{"nodeSelectorTerms",
         json::array{json::object{
             {"matchExpressions",
              json::array{json::object{
                  {"key", key}, {"operator", "In"}, {"values", json::array{zone}}}}}}}}}}};
}

// A claim bound to a volume whose node affinity pins `key` to `zone`.
void add_bound_home(json::object& s, const std::string& key, const std::string& zone) {
  s["persistentVolumes"] = json::array{
      json::object{{"metadata", {{"name", "pv-home"}}},
                   {"spec",
                    {{"capacity", {{"storage", "10Gi"}}},
                     {"accessModes", json::array{"ReadWriteOnce"}},
                     {"storageClassName", "standard"},
                     {"csi", {{"driver", "pd.csi.storage.gke.io"}, {"volumeHandle", "disk-1"}}},
                     {"claimRef", {{"namespace", "hub"}, {"name", "home"}}},
                     {"nodeAffinity", zone_affinity(key, zone)}}},
                   {"status", {{"phase", "Bound"}}}}};
  s["persistentVolumeClaims"] =
      json::array{json::object{{"metadata",
                                {{"name", "home"},
                                 {"namespace", "hub"},
                                 {"annotations", {{"pv.kubernetes.io/bind-completed", "yes"}}}}},
                               {"spec",
                                {{"accessModes", json::array{"ReadWriteOnce"}},
                                 {"storageClassName", "standard"},
                                 {"volumeName", "pv-home"},
                                 {"resources", {{"requests", {{"storage", "10Gi"}}}}}}},
                               {"status", {{"phase", "Bound"}}}}};
  s["storageClasses"] = json::array{json::object{{"metadata", {{"name", "standard"}}},
                                                 {"provisioner", "pd.csi.storage.gke.io"},
                                                 {"volumeBindingMode", "WaitForFirstConsumer"}}};
}

std::string scaled_group(const json::object& r) {
  const auto& ups = r.at("scaleUp").as_array();
  if (ups.empty()) return "";
  return std::string(ups[0].at("nodeGroup").as_string());
}

TEST(AutoscalerObjects, BoundClaimPinsTheZone) {
  // The notebook's home volume lives in z1: only the z1 pool can take it,
  // though the z2 pool comes first by name.
  json::object s;
  s["nodeGroups"] = json::array{empty_group("a-z2", zone_template("z2")),
                                empty_group("b-z1", zone_template("z1"))};
  json::object notebook = pod("jupyter-ada", "1");
  add_claim_volume(notebook, "home");
  s["pending"] = json::array{notebook};
  add_bound_home(s, "topology.kubernetes.io/zone", "z1");
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_EQ(scaled_group(r), "b-z1") << r;
  EXPECT_EQ(r.at("scaleUp").as_array()[0].at("delta").as_int64(), 1);
  // The z2 pool was considered and rejected by VolumeBinding.
  const auto& options = r.at("options").as_array();
  ASSERT_EQ(options.size(), 1u) << r;
  EXPECT_EQ(options[0].at("nodeGroup").as_string(), "b-z1");
}

TEST(AutoscalerObjects, TemplateWithoutTheCsiTopologyLabel) {
  // kubernetes/autoscaler#3845: the volume's affinity names the CSI driver's
  // topology key; a template (a cloud provider's) without that label cannot
  // take the pod, so CA does not scale up for it.
  json::object s;
  s["nodeGroups"] = json::array{empty_group("dask", zone_template("z1"))};
  json::object notebook = pod("jupyter-ada", "1");
  add_claim_volume(notebook, "home");
  s["pending"] = json::array{notebook};
  add_bound_home(s, "topology.gke.io/zone", "z1");
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_TRUE(r.at("scaleUp").as_array().empty()) << r;
  EXPECT_EQ(r.at("unhelped").as_array(), (json::array{"hub/jupyter-ada"}));
  const auto& rejected = r.at("noScaleUp").as_array()[0].at("rejected").as_object();
  EXPECT_EQ(rejected.at("dask").as_array(),
            (json::array{"node(s) didn't match PersistentVolume's node affinity"}))
      << r;

  // A template copied from a real node of the group carries the label.
  json::object labels{{"topology.kubernetes.io/zone", "z1"}, {"topology.gke.io/zone", "z1"}};
  s["nodes"] = json::array{node("dask-0", labels)};
  s["nodeGroups"].as_array()[0].as_object()["nodes"] = json::array{"dask-0"};
  json::object filler = pod("filler", "4");  // no room left on dask-0
  filler["spec"].as_object()["nodeName"] = "dask-0";
  s["pods"] = json::array{filler};
  r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_EQ(scaled_group(r), "dask") << r;
}

TEST(AutoscalerObjects, ClassAllowedTopologiesExcludePools) {
  // A claim still to provision, its class limited to z1 and waiting for the
  // first consumer: VolumeBinding's provisioning check rejects the z2 pool.
  json::object s;
  s["nodeGroups"] = json::array{empty_group("a-z2", zone_template("z2")),
                                empty_group("b-z1", zone_template("z1"))};
  json::object notebook = pod("jupyter-ada", "1");
  add_claim_volume(notebook, "home");
  s["pending"] = json::array{notebook};
  s["storageClasses"] = json::array{json::object{
      {"metadata", {{"name", "zonal"}}},
      {"provisioner", "pd.csi.storage.gke.io"},
      {"volumeBindingMode", "WaitForFirstConsumer"},
      {"allowedTopologies",
       json::array{json::object{{"matchLabelExpressions",
                                 json::array{json::object{{"key", "topology.kubernetes.io/zone"},
                                                          {"values", json::array{"z1"}}}}}}}}}};
  s["persistentVolumeClaims"] =
      json::array{json::object{{"metadata", {{"name", "home"}, {"namespace", "hub"}}},
                               {"spec",
                                {{"accessModes", json::array{"ReadWriteOnce"}},
                                 {"storageClassName", "zonal"},
                                 {"resources", {{"requests", {{"storage", "10Gi"}}}}}}},
                               {"status", {{"phase", "Pending"}}}}};
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_EQ(scaled_group(r), "b-z1") << r;
  EXPECT_TRUE(r.at("unhelped").as_array().empty()) << r;
  const auto& options = r.at("options").as_array();
  ASSERT_EQ(options.size(), 1u) << r;  // a-z2 was rejected
  EXPECT_EQ(options[0].at("nodeGroup").as_string(), "b-z1");
}

TEST(AutoscalerObjects, NoReserveBetweenSimulatedPods) {
  // Two pods, each with its own unbound claim that the one local volume
  // could satisfy. kube-scheduler's Reserve would give it to the first; CA's
  // simulator runs no Reserve, so both pods see it free and one new node is
  // asked for both.
  json::object s;
  s["nodeGroups"] = json::array{empty_group("local", zone_template("z1"))};
  json::array pending, claims;
  for (const char* name : {"a", "b"}) {
    json::object p = pod(std::string("worker-") + name, "1");
    add_claim_volume(p, std::string("scratch-") + name);
    pending.push_back(p);
    claims.push_back(
        json::object{{"metadata", {{"name", std::string("scratch-") + name}, {"namespace", "hub"}}},
                     {"spec",
                      {{"accessModes", json::array{"ReadWriteOnce"}},
                       {"storageClassName", "local"},
                       {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  }
  s["pending"] = pending;
  s["persistentVolumeClaims"] = claims;
  s["storageClasses"] = json::array{json::object{{"metadata", {{"name", "local"}}},
                                                 {"provisioner", "kubernetes.io/no-provisioner"},
                                                 {"volumeBindingMode", "WaitForFirstConsumer"}}};
  s["persistentVolumes"] = json::array{
      json::object{{"metadata", {{"name", "local-1"}}},
                   {"spec",
                    {{"capacity", {{"storage", "5Gi"}}},
                     {"accessModes", json::array{"ReadWriteOnce"}},
                     {"storageClassName", "local"},
                     {"local", {{"path", "/mnt/disks/1"}}},
                     {"nodeAffinity", zone_affinity("topology.kubernetes.io/zone", "z1")}}},
                   {"status", {{"phase", "Available"}}}}};
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  ASSERT_EQ(scaled_group(r), "local") << r;
  const auto& up = r.at("scaleUp").as_array()[0].as_object();
  EXPECT_EQ(up.at("estimated").as_int64(), 1);
  EXPECT_EQ(up.at("pods").as_array(), (json::array{"hub/worker-a", "hub/worker-b"}));
  EXPECT_TRUE(r.at("unhelped").as_array().empty()) << r;
}

TEST(AutoscalerObjects, HostnameAntiAffinityNeedsANodeEach) {
  // zero-to-jupyterhub's user placeholders: each repels the others from its
  // node. The template has no hostname label; CA gives every copy one.
  json::object s;
  s["nodeGroups"] = json::array{empty_group("users", zone_template("z1"))};
  json::object placeholder = pod("user-placeholder", "100m");
  placeholder["metadata"].as_object()["labels"] = {{"component", "user-placeholder"}};
  placeholder["spec"].as_object()["affinity"] = {
      {"podAntiAffinity",
       {{"requiredDuringSchedulingIgnoredDuringExecution",
         json::array{
             json::object{{"labelSelector", {{"matchLabels", {{"component", "user-placeholder"}}}}},
                          {"topologyKey", "kubernetes.io/hostname"}}}}}}};
  placeholder["replicas"] = 3;
  s["pending"] = json::array{placeholder};
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  ASSERT_EQ(scaled_group(r), "users") << r;
  const auto& up = r.at("scaleUp").as_array()[0].as_object();
  EXPECT_EQ(up.at("estimated").as_int64(), 3);
  EXPECT_EQ(up.at("delta").as_int64(), 3);
  EXPECT_EQ(up.at("pods").as_array().size(), 3u);
}

// Two full real nodes, one per zone; z1's runs two pods of app "web".
json::object two_zone_cluster() {
  json::object s;
  json::value n1 = node("n-z1", {{"topology.kubernetes.io/zone", "z1"}});
  json::value n2 = node("n-z2", {{"topology.kubernetes.io/zone", "z2"}});
  json::array pods;
  for (const char* name : {"web-0", "web-1"}) {
    json::object p = pod(name, "2");
    p["metadata"].as_object()["labels"] = {{"app", "web"}};
    p["spec"].as_object()["nodeName"] = "n-z1";
    pods.push_back(p);
  }
  json::object filler = pod("batch", "4");
  filler["spec"].as_object()["nodeName"] = "n-z2";
  pods.push_back(filler);
  s["nodes"] = json::array{n1, n2};
  s["pods"] = pods;
  s["nodeGroups"] = json::array{empty_group("a-z1", zone_template("z1")),
                                empty_group("b-z2", zone_template("z2"))};
  return s;
}

TEST(AutoscalerObjects, DoNotScheduleSpreadCountsTheWholeSnapshot) {
  // z1 already has two "web" pods, z2 none: with maxSkew 1 over zones the
  // next two can only go to z2, so the z1 pool is rejected although its new
  // node is empty.
  json::object s = two_zone_cluster();
  json::object web = pod("web", "1");
  web["metadata"].as_object()["labels"] = {{"app", "web"}};
  web["spec"].as_object()["topologySpreadConstraints"] =
      json::array{json::object{{"maxSkew", 1},
                               {"topologyKey", "topology.kubernetes.io/zone"},
                               {"whenUnsatisfiable", "DoNotSchedule"},
                               {"labelSelector", {{"matchLabels", {{"app", "web"}}}}}}};
  web["replicas"] = 2;
  s["pending"] = json::array{web};
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  ASSERT_EQ(scaled_group(r), "b-z2") << r;
  const auto& up = r.at("scaleUp").as_array()[0].as_object();
  EXPECT_EQ(up.at("pods").as_array().size(), 2u);
  EXPECT_EQ(up.at("estimated").as_int64(), 1);

  // ScheduleAnyway only scores, which CA does not: the lowest name wins.
  web["spec"]
      .as_object()["topologySpreadConstraints"]
      .as_array()[0]
      .as_object()["whenUnsatisfiable"] = "ScheduleAnyway";
  s["pending"] = json::array{web};
  r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_EQ(scaled_group(r), "a-z1") << r;
}

TEST(AutoscalerObjects, RequiredZoneAffinityFollowsTheExistingPods) {
  // A Dask scheduler that must share a zone with the "web" pods (z1).
  json::object s = two_zone_cluster();
  s["nodeGroups"] = json::array{empty_group("a-z2", zone_template("z2")),
                                empty_group("b-z1", zone_template("z1"))};
  json::object sched = pod("dask-scheduler", "1");
  sched["spec"].as_object()["affinity"] = {
      {"podAffinity",
       {{"requiredDuringSchedulingIgnoredDuringExecution",
         json::array{json::object{{"labelSelector", {{"matchLabels", {{"app", "web"}}}}},
                                  {"topologyKey", "topology.kubernetes.io/zone"}}}}}}};
  s["pending"] = json::array{sched};
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_EQ(scaled_group(r), "b-z1") << r;
}

TEST(AutoscalerObjects, HostnameSpreadFallsBackToAnyNodeOfTheFork) {
  // tryToScheduleOnNewNodes: a pod with a hostname spread constraint that
  // the last new node rejects for skew is tried on every other node, and CA
  // counts the real node it lands on among the new nodes with pods. R (z2)
  // takes w-0; the zone skew keeps the rest off it until the new z1 nodes
  // have some; the tainted T holds both minimums at 0.
  json::object s;
  json::value r_node =
      node("r", {{"topology.kubernetes.io/zone", "z2"}, {"kubernetes.io/hostname", "r"}});
  r_node.as_object()["status"].as_object()["capacity"].as_object()["cpu"] = "8";
  json::value t_node =
      node("t", {{"topology.kubernetes.io/zone", "z1"}, {"kubernetes.io/hostname", "t"}});
  t_node.as_object()["spec"] = {
      {"taints",
       json::array{json::object{{"key", "dedicated"}, {"value", "x"}, {"effect", "NoSchedule"}}}}};
  s["nodes"] = json::array{r_node, t_node};
  s["nodeGroups"] = json::array{empty_group("a-z1", zone_template("z1"))};
  json::object w = pod("w", "500m");
  w["metadata"].as_object()["labels"] = {{"app", "w"}};
  auto constraint = [](const char* key, int skew) {
    return json::object{{"maxSkew", skew},
                        {"topologyKey", key},
                        {"whenUnsatisfiable", "DoNotSchedule"},
                        {"labelSelector", {{"matchLabels", {{"app", "w"}}}}}};
  };
  w["spec"].as_object()["topologySpreadConstraints"] = json::array{
      constraint("topology.kubernetes.io/zone", 1), constraint("kubernetes.io/hostname", 2)};
  w["replicas"] = 5;
  s["pending"] = json::array{w};
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_EQ(r.at("fitsExisting").as_array(), (json::array{"hub/w-0"})) << r;
  ASSERT_EQ(scaled_group(r), "a-z1") << r;
  const auto& up = r.at("scaleUp").as_array()[0].as_object();
  // w-1, w-2 on e-0; w-3 on r by the fallback; w-4 on e-1: two new nodes
  // and r, three "nodes" to CA.
  EXPECT_EQ(up.at("estimated").as_int64(), 3) << r;
  EXPECT_EQ(up.at("pods").as_array().size(), 4u) << r;
}

TEST(AutoscalerObjects, SimilarPodsAreNotTriedAgainInALoop) {
  // Dask workers must share a zone with their scheduler, which is pending
  // too and comes after some of them: the first finds no node, and
  // filter-out-schedulable then skips every worker like it
  // (SimilarPodsScheduling), those after the scheduler too.
  json::object s;
  s["nodes"] = json::array{node("r", {{"topology.kubernetes.io/zone", "z1"}})};
  s["nodes"].as_array()[0].as_object()["status"].as_object()["capacity"].as_object()["cpu"] = "64";
  json::object sched = pod("dask-scheduler", "100m");
  sched["metadata"].as_object()["labels"] = {{"dask", "scheduler"}};
  json::object worker = pod("dask-worker", "100m");
  worker["metadata"].as_object()["ownerReferences"] = json::array{json::object{
      {"kind", "DaskCluster"}, {"name", "dc"}, {"uid", "uid-dc"}, {"controller", true}}};
  worker["spec"].as_object()["affinity"] = {
      {"podAffinity",
       {{"requiredDuringSchedulingIgnoredDuringExecution",
         json::array{json::object{{"labelSelector", {{"matchLabels", {{"dask", "scheduler"}}}}},
                                  {"topologyKey", "topology.kubernetes.io/zone"}}}}}}};
  worker["replicas"] = 10;
  json::object more = worker;  // the same controller and spec: similar pods
  more["metadata"].as_object()["name"] = "dask-worker-b";
  s["pending"] = json::array{worker, sched, more};
  s["nodeGroups"] = json::array{empty_group("a-z1", zone_template("z1"))};
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_EQ(r.at("fitsExisting").as_array(), (json::array{"hub/dask-scheduler"})) << r;
  // The workers fit the template, in the scheduler's zone: a scale-up for
  // them, though r has room.
  EXPECT_EQ(scaled_group(r), "a-z1") << r;
}

TEST(AutoscalerObjects, NodesNotAddedYetAreNoSpreadDomains) {
  // Hostname spread, maxSkew 1, and room for two pods a node: a new node is
  // a domain only once the estimator adds it, so each takes two, not one.
  json::object s;
  s["nodeGroups"] = json::array{empty_group("workers", zone_template("z1"))};
  json::object w = pod("w", "2");
  w["metadata"].as_object()["labels"] = {{"app", "w"}};
  w["spec"].as_object()["topologySpreadConstraints"] =
      json::array{json::object{{"maxSkew", 1},
                               {"topologyKey", "kubernetes.io/hostname"},
                               {"whenUnsatisfiable", "DoNotSchedule"},
                               {"labelSelector", {{"matchLabels", {{"app", "w"}}}}}}};
  w["replicas"] = 4;
  s["pending"] = json::array{w};
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  ASSERT_EQ(scaled_group(r), "workers") << r;
  EXPECT_EQ(r.at("scaleUp").as_array()[0].at("estimated").as_int64(), 2) << r;
}

TEST(AutoscalerObjects, PodsSomeGroupPassedAreNotUnhelped) {
  // PodsRemainUnschedulable: only pods whose template check no group
  // passed. With one loop, the pod for the group not chosen is not among
  // them.
  json::object s;
  s["nodeGroups"] = json::array{empty_group("a", node("", {{"pool", "a"}})),
                                empty_group("b", node("", {{"pool", "b"}}))};
  json::object for_a = pod("for-a", "1");
  for_a["spec"].as_object()["nodeSelector"] = {{"pool", "a"}};
  json::object for_b = pod("for-b", "1");
  for_b["spec"].as_object()["nodeSelector"] = {{"pool", "b"}};
  json::object nowhere = pod("nowhere", "1");
  nowhere["spec"].as_object()["nodeSelector"] = {{"pool", "c"}};
  s["pending"] = json::array{for_a, for_b, nowhere};
  s["options"] = {{"maxLoops", 1}};
  s["expander"] = "least-waste";  // a tie, to the lowest name
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_EQ(scaled_group(r), "a") << r;
  EXPECT_EQ(r.at("unhelped").as_array(), (json::array{"hub/nowhere"})) << r;
}

TEST(AutoscalerObjects, ExpendableBoundPodsAreNotInTheSnapshot) {
  // A bound pod below the expendable cutoff (-10) holds 3 of n1's 4 cpus;
  // CA's snapshot leaves it out, so the pending pod fits n1 and nothing
  // scales, and n1's utilization counts only the pod that fits there.
  json::object s;
  s["nodes"] = json::array{node("n1", {{"pool", "a"}})};
  json::object low = pod("low", "3");
  low["spec"].as_object()["nodeName"] = "n1";
  low["spec"].as_object()["priority"] = -100;
  s["pods"] = json::array{low};
  s["nodeGroups"] = json::array{
      json::object{{"name", "a"}, {"minSize", 0}, {"maxSize", 10}, {"nodes", json::array{"n1"}}}};
  s["pending"] = json::array{pod("p", "2")};
  s["expander"] = "least-waste";
  s["scaleDown"] = true;
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_TRUE(r.at("scaleUp").as_array().empty()) << r;
  EXPECT_EQ(r.at("fitsExisting").as_array(), (json::array{"hub/p"})) << r;
  EXPECT_EQ(r.at("scaleDown").at("utilization").at("n1").at("cpu").as_double(), 0.5) << r;
}

TEST(AutoscalerObjects, UnknownKeyIsAnErrorNamingIt) {
  auto r = run(json::object{{"persistentVolumeClaim", json::array{}}});
  ASSERT_TRUE(r.contains("error"));
  EXPECT_NE(std::string(r.at("error").as_string()).find("$.persistentVolumeClaim"),
            std::string::npos)
      << r;
  // An object of the wrong shape names its path too.
  r = run(json::object{{"storageClasses", json::array{json::object{{"provisioner", 3}}}}});
  ASSERT_TRUE(r.contains("error"));
  EXPECT_NE(std::string(r.at("error").as_string()).find("$.storageClasses[0]"), std::string::npos)
      << r;
}

TEST(AutoscalerObjects, ScaleDownMovesAClaimOnlyWithinItsZone) {
  // The notebook's node is nearly idle and an idle node (of no group) waits
  // in z2, but the notebook's volume lives in z1: it cannot move there.
  json::object s;
  s["nodes"] = json::array{node("pool-z1", {{"topology.kubernetes.io/zone", "z1"}}),
                           node("other-z2", {{"topology.kubernetes.io/zone", "z2"}})};
  json::object notebook = pod("jupyter-ada", "500m");
  add_claim_volume(notebook, "home");
  notebook["metadata"].as_object()["ownerReferences"] =
      json::array{json::object{{"kind", "StatefulSet"}, {"name", "nb"}, {"controller", true}}};
  notebook["spec"].as_object()["nodeName"] = "pool-z1";
  s["pods"] = json::array{notebook};
  s["statefulSets"] =
      json::array{json::object{{"metadata", {{"name", "nb"}, {"namespace", "hub"}}}}};
  s["nodeGroups"] = json::array{json::object{
      {"name", "pool"}, {"minSize", 0}, {"maxSize", 10}, {"nodes", json::array{"pool-z1"}}}};
  s["scaleDown"] = true;
  add_bound_home(s, "topology.kubernetes.io/zone", "z1");
  auto r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_EQ(r.at("scaleDown").at("blocked").at("pool-z1").as_string(), "NoPlaceToMovePods") << r;

  // In the volume's zone, the same node is removable.
  s["nodes"].as_array()[1] = node("other-z1", {{"topology.kubernetes.io/zone", "z1"}});
  r = run(s);
  ASSERT_FALSE(r.contains("error")) << r;
  EXPECT_EQ(r.at("scaleDown").at("unneeded").as_array(), (json::array{"pool-z1"})) << r;
}

}  // namespace
}  // namespace tightpack::autoscaler
