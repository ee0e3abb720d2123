// `tightpack forecast` on examples/forecast/: a DaskHub on GKE whose nodes
// show most of cluster-autoscaler's scale-down verdicts.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "cli/cli.hpp"
#include "cli_run.hpp"

namespace tightpack::cli {
namespace {

using testing::CliRun;
using testing::run_cli;

std::string source(const std::string& relative) {
  return std::string(TIGHTPACK_SOURCE_DIR) + "/" + relative;
}

const std::string kCluster = source("examples/forecast/cluster.json");
const std::string kPools = source("examples/forecast/pools.yaml");

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The line of the node table that starts with the node's name.
std::string row(const std::string& table, const std::string& node) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(node + " ", 0) == 0) return line;
  }
  return "";
}

TEST(ForecastCli, HelpAndUsage) {
  CliRun help = run_cli({"forecast", "--help"});
  EXPECT_EQ(help.code, kOk);
  EXPECT_TRUE(has(help.out, "Usage: tightpack forecast --cluster FILE")) << help.out;
  EXPECT_EQ(run_cli({"help", "forecast"}).out, help.out);
  EXPECT_TRUE(has(run_cli({"--help"}).out, "tightpack forecast --cluster FILE"));
}

TEST(ForecastCli, TableNamesEveryBlocker) {
  CliRun r = run_cli({"forecast", "--cluster", kCluster});
  ASSERT_EQ(r.code, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "Scale-down forecast: 1 of 11 nodes removable after 10m unneeded"))
      << r.out;
  EXPECT_TRUE(has(r.out, "NODE ")) << r.out;
  EXPECT_TRUE(has(row(r.out, "gke-daskhub-core-pool-7f3a-9k4d"), "NotUnderutilized   "));
  EXPECT_TRUE(has(row(r.out, "gke-daskhub-core-pool-7f3a-9k4d"), "cpu 66.3% ≥ threshold 50%"));
  EXPECT_TRUE(
      has(row(r.out, "gke-daskhub-core-pool-7f3a-1x2c"),
          "kube-system pod kube-system/kube-dns-6c7b8d9f4-h8tq2 without a PodDisruptionBudget"));
  EXPECT_TRUE(has(row(r.out, "gke-daskhub-user-pool-51e2-b7q1"),
                  "pod jhub/jupyter-alice has no controller"));
  EXPECT_TRUE(
      has(row(r.out, "gke-daskhub-user-pool-51e2-c2m8"), "BlockedByPod/LocalStorageRequested"));
  // alice's workers, as the Dask operator makes them (ReplicaSet-owned), keep
  // their node only because her worker template says safe-to-evict "false".
  EXPECT_TRUE(has(row(r.out, "gke-daskhub-dask-workers-a9c4-4jwp"),
                  "pod daskhub/alice-default-worker-0 is annotated "
                  "cluster-autoscaler.kubernetes.io/safe-to-evict: \"false\""));
  EXPECT_TRUE(has(row(r.out, "gke-daskhub-dask-workers-a9c4-k3zt"),
                  "BlockedByPod/NotSafeToEvictAnnotation"));
  EXPECT_TRUE(has(row(r.out, "gke-daskhub-dask-workers-a9c4-q7vd"), "yes"));
  EXPECT_TRUE(
      has(row(r.out, "gke-daskhub-gpu-t4-3b1e-m2xa"), "nvidia.com/gpu 100% ≥ GPU threshold 50%"));
  EXPECT_TRUE(has(row(r.out, "gke-daskhub-gpu-t4-x4-d81f-w9rc"),
                  "pod ml/trainer-5c9d7-p2f8k fits on no other node"));
  EXPECT_TRUE(has(row(r.out, "build-runner-1"), "<none>"));
  EXPECT_TRUE(has(row(r.out, "build-runner-1"), "NotAutoscaled"));
  // Pools: inferred ones are marked, with the fixes and notes after.
  EXPECT_TRUE(has(r.out, "dask-workers*   4       1           0 (assumed)")) << r.out;
  EXPECT_TRUE(has(r.out, "* inferred from node labels: min size unknown, assumed 0")) << r.out;
  EXPECT_TRUE(has(r.out, "To unblock:\n")) << r.out;
  EXPECT_TRUE(has(r.out, "--skip-nodes-with-custom-controller-pods=false")) << r.out;
  EXPECT_TRUE(has(r.out, "the snapshot lists no controllers")) << r.out;
}

TEST(ForecastCli, RemovingAUsersWorkersFreesTheirNode) {
  CliRun r =
      run_cli({"forecast", "--cluster", kCluster, "--remove", "dask.org/cluster-name=alice"});
  ASSERT_EQ(r.code, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "Removed first: 2 pods matching dask.org/cluster-name=alice\n")) << r.out;
  EXPECT_TRUE(has(r.out, "2 of 11 nodes removable")) << r.out;
  EXPECT_TRUE(has(row(r.out, "gke-daskhub-dask-workers-a9c4-4jwp"),
                  "empty (DaemonSet and mirror pods only)"))
      << r.out;
}

// The dask-kubernetes operator retires a worker by deleting its Deployment
// (named after the worker); dask-gateway by deleting its pod.
TEST(ForecastCli, RemovingNamedDeploymentsAndPods) {
  CliRun r = run_cli({"forecast", "--cluster", kCluster, "--remove-deployments",
                      "daskhub/alice-default-worker-a70f5c2e46", "--output", "json"});
  ASSERT_EQ(r.code, kOk) << r.err;
  auto doc = boost::json::parse(r.out);
  EXPECT_EQ(doc.at("removedPods"), boost::json::array{"daskhub/alice-default-worker-0"}) << r.out;

  CliRun both = run_cli({"forecast", "--cluster", kCluster, "--remove-deployments",
                         "daskhub/alice-default-worker-a70f5c2e46,daskhub/alice-default-worker-"
                         "7c563b8149",
                         "--remove-pods=daskhub/nobody"});
  ASSERT_EQ(both.code, kOk) << both.err;
  EXPECT_TRUE(has(both.out,
                  "Removed first: 2 pods (pods daskhub/nobody; Deployments "
                  "daskhub/alice-default-worker-a70f5c2e46,daskhub/alice-default-worker-"
                  "7c563b8149)\n"))
      << both.out;
  EXPECT_TRUE(has(both.out, "2 of 11 nodes removable")) << both.out;
  EXPECT_TRUE(has(both.out, "pod \"daskhub/nobody\" is not running in the snapshot")) << both.out;

  CliRun bad = run_cli({"forecast", "--cluster", kCluster, "--remove-pods", "daskhub/a,b"});
  EXPECT_EQ(bad.code, kUsage);
  EXPECT_EQ(bad.err,
            "tightpack forecast: --remove-pods: \"b\" is not a pod reference: expected "
            "namespace/name\n");
}

TEST(ForecastCli, PoolsFileSetsMinSizesAndTheUnneededTime) {
  CliRun r = run_cli({"forecast", "--cluster", kCluster, "--pools", kPools});
  ASSERT_EQ(r.code, kOk) << r.err;
  EXPECT_TRUE(has(r.out, "removable after 5m unneeded")) << r.out;
  EXPECT_TRUE(has(row(r.out, "gke-daskhub-core-pool-7f3a-1x2c"), "pool core-pool at min size 2"))
      << r.out;
  EXPECT_TRUE(has(r.out, "\ncore-pool      2       0           2\n")) << r.out;
}

TEST(ForecastCli, JsonOutput) {
  CliRun r = run_cli({"forecast", "--cluster", kCluster, "--output", "json", "--remove",
                      "dask.org/cluster-name in (alice)"});
  ASSERT_EQ(r.code, kOk) << r.err;
  auto doc = boost::json::parse(r.out).as_object();
  EXPECT_EQ(doc.at("summary").at("nodes").as_int64(), 11);
  EXPECT_EQ(doc.at("summary").at("removable").as_int64(), 2);
  EXPECT_EQ(doc.at("removedPods").as_array().size(), 2u);
  const auto& gpu = doc.at("nodes").as_array()[9].as_object();
  EXPECT_EQ(gpu.at("node").as_string(), "gke-daskhub-gpu-t4-x4-d81f-w9rc");
  EXPECT_EQ(gpu.at("reason").as_string(), "NoPlaceToMovePods");
  EXPECT_EQ(gpu.at("blockingPod").as_string(), "ml/trainer-5c9d7-p2f8k");
}

TEST(ForecastCli, ClusterFromStandardInput) {
  std::ifstream f(kCluster);
  std::stringstream text;
  text << f.rdbuf();
  CliRun r = run_cli({"forecast", "--cluster", "-", "--output=json"}, text.str());
  ASSERT_EQ(r.code, kOk) << r.err;
  EXPECT_EQ(boost::json::parse(r.out).at("summary").at("removable").as_int64(), 1);
}

TEST(ForecastCli, BadSelectorIsAUsageErrorNamingThePosition) {
  CliRun r =
      run_cli({"forecast", "--cluster", kCluster, "--remove", "dask.org/cluster-name in (alice"});
  EXPECT_EQ(r.code, kUsage);
  EXPECT_EQ(r.err,
            "tightpack forecast: --remove: invalid selector \"dask.org/cluster-name in (alice\" at "
            "position 32: expected ',' or ')', found the end of the selector\n");
  EXPECT_EQ(run_cli({"forecast", "--cluster", kCluster, "--remove", ""}).code, kUsage);
}

TEST(ForecastCli, UsageErrors) {
  CliRun missing = run_cli({"forecast"});
  EXPECT_EQ(missing.code, kUsage);
  EXPECT_TRUE(has(missing.err, "--cluster is required")) << missing.err;
  CliRun unknown = run_cli({"forecast", "--cluster", kCluster, "--replicas", "3"});
  EXPECT_EQ(unknown.code, kUsage);
  EXPECT_TRUE(has(unknown.err, "unknown option --replicas")) << unknown.err;
  CliRun output = run_cli({"forecast", "--cluster", kCluster, "--output", "yaml"});
  EXPECT_EQ(output.code, kUsage);
  EXPECT_TRUE(has(output.err, "--output must be table or json, not \"yaml\"")) << output.err;
  CliRun now = run_cli({"forecast", "--cluster", kCluster, "--now", "yesterday"});
  EXPECT_EQ(now.code, kUsage);
  EXPECT_TRUE(has(now.err,
                  "--now must be an RFC 3339 time such as 2026-11-30T12:00:00Z, not \"yesterday\""))
      << now.err;
  EXPECT_EQ(run_cli({"forecast", "--cluster", kCluster, "--now", "2026-11-30T12:00:00Z"}).code,
            kOk);
  EXPECT_EQ(run_cli({"forecast", "--cluster", "-", "--pools", "-"}).code, kUsage);
  EXPECT_EQ(run_cli({"forecast", "--cluster"}).code, kUsage);
}

TEST(ForecastCli, UnreadableFileIsAnInputError) {
  CliRun r = run_cli({"forecast", "--cluster", "/nonexistent/cluster.json"});
  EXPECT_EQ(r.code, kInputError);
  EXPECT_TRUE(has(r.err, "tightpack forecast: cannot read /nonexistent/cluster.json")) << r.err;
}

TEST(ForecastCli, BadClusterNamesTheFileFieldAndValue) {
  const std::string cluster =
      R"({"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "a"},
      "status": {"allocatable": {"cpu": "lots"}}}]})";
  CliRun r = run_cli({"forecast", "--cluster", "-"}, cluster);
  EXPECT_EQ(r.code, kInputError);
  EXPECT_TRUE(has(r.err, "tightpack forecast: -: $.items[0].status.allocatable.cpu")) << r.err;
  EXPECT_TRUE(has(r.err, "\"lots\"")) << r.err;
}

TEST(ForecastCli, BadPoolsFileNamesTheFileFieldAndValue) {
  const std::string pools =
      "apiVersion: tightpack.io/v1alpha1\nkind: NodePools\npools:\n  - name: core\n    maxSise: "
      "3\n";
  CliRun r = run_cli({"forecast", "--cluster", kCluster, "--pools", "-"}, pools);
  EXPECT_EQ(r.code, kInputError);
  EXPECT_TRUE(has(r.err, "tightpack forecast: -: $.pools[0].maxSise: unknown field \"maxSise\""))
      << r.err;
}

TEST(ForecastCli, UnparsableDocumentIsAnInputError) {
  CliRun r = run_cli({"forecast", "--cluster", "-"}, "{\"kind\": ");
  EXPECT_EQ(r.code, kInputError);
  EXPECT_TRUE(has(r.err, "tightpack forecast: -: ")) << r.err;
}

}  // namespace
}  // namespace tightpack::cli
