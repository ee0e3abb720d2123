// `tightpack predict --pools` on examples/daskhub-gke: a DaskHub on GKE with a
// core pool, a preemptible Dask worker pool and two GPU pools, one at size 0.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <sstream>

#include "cli/cli.hpp"
#include "cli_run.hpp"

namespace tightpack::cli {
namespace {

using testing::CliRun;
using testing::run_cli;

std::string example(const std::string& file) {
  return std::string(TIGHTPACK_SOURCE_DIR) + "/examples/daskhub-gke/" + file;
}

CliRun predict(const std::string& pod, int replicas, const std::string& pools_file,
               const std::string& output = "table", const std::string& stdin_text = "") {
  return run_cli(
      {"predict", "--cluster", example("cluster.json"), "--pod", example(pod), "--replicas",
       std::to_string(replicas), "--pools", pools_file, "--output", output},
      stdin_text);
}

TEST(PredictPools, DaskWorkersGrowTheWorkerPoolByThreeNodes) {
  // One of 12 workers fits today; the other 11 and another user's pending
  // worker need 3 new nodes of 4 workers each.
  CliRun r = predict("dask-worker.yaml", 12, example("pools.yaml"));
  ASSERT_EQ(r.code, kOk) << r.err << r.out;
  EXPECT_NE(r.out.find("1 of 12 replicas placed on 1 node(s)"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("Scale-up (cluster-autoscaler, expander least-waste):\n"
                 "POOL          ADD  REPLICAS  READY IN  NOTE\n"
                 "dask-workers    3        11  ~2 min    preemptible, $0.39/h added, +1 other "
                 "pending pod\n"),
      std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("Not schedulable"), std::string::npos) << r.out;
}

TEST(PredictPools, GpuWorkersFillTheT4PoolThenTheA100PoolAtSizeZero) {
  CliRun r = predict("gpu-worker.yaml", 3, example("pools.yaml"), "json");
  ASSERT_EQ(r.code, kOk) << r.err;
  const auto doc = boost::json::parse(r.out).as_object();
  EXPECT_EQ(doc.at("placed").as_int64(), 0);
  const auto& up = doc.at("scaleUp").as_object();
  EXPECT_EQ(up.at("expander").as_string(), "least-waste");
  EXPECT_EQ(up.at("replicasPending").as_int64(), 3);
  EXPECT_TRUE(up.at("everyReplicaRuns").as_bool());
  const auto& pools = up.at("pools").as_array();
  ASSERT_EQ(pools.size(), 2u) << up;
  // least-waste prefers the T4 node; the estimator stops at the pool's room
  // (one node below its max size 2).
  const auto& t4 = pools[0].as_object();
  EXPECT_EQ(t4.at("pool").as_string(), "gpu-t4");
  EXPECT_EQ(t4.at("nodesAdded").as_int64(), 1);
  EXPECT_EQ(t4.at("estimated").as_int64(), 1);
  EXPECT_TRUE(t4.at("maxSizeReached").as_bool());
  // Which replica lands where is CA's round-robin over the new nodes, from
  // where its last placement of the run left it.
  EXPECT_EQ(t4.at("replicas").as_array(), (boost::json::array{"daskhub/gpu-worker-1"}));
  EXPECT_EQ(t4.at("readyInSeconds").as_int64(), 600);
  EXPECT_FALSE(t4.at("templateFromConfiguration").as_bool());
  EXPECT_DOUBLE_EQ(t4.at("addedPricePerHour").as_double(), 0.73);
  // The next loop: the A100 pool, known only from the NodePools template.
  const auto& a100 = pools[1].as_object();
  EXPECT_EQ(a100.at("pool").as_string(), "gpu-a100");
  EXPECT_EQ(a100.at("nodesAdded").as_int64(), 2);
  EXPECT_EQ(a100.at("loops").as_array(), (boost::json::array{2}));
  EXPECT_EQ(a100.at("replicas").as_array(),
            (boost::json::array{"daskhub/gpu-worker-0", "daskhub/gpu-worker-2"}));
  EXPECT_EQ(a100.at("readyInSeconds").as_int64(), 12 * 60 + 10);
  EXPECT_TRUE(a100.at("templateFromConfiguration").as_bool());
  EXPECT_DOUBLE_EQ(a100.at("addedPricePerHour").as_double(), 2 * 3.67);
  EXPECT_TRUE(up.at("unplaced").as_array().empty());
}

TEST(PredictPools, OnePodsOutlookIsTheSpawnPagesWords) {
  // One GPU worker: the T4 pool grows for it, ready in its provisioning time.
  CliRun r = predict("gpu-worker.yaml", 1, example("pools.yaml"));
  ASSERT_EQ(r.code, kOk) << r.err << r.out;
  EXPECT_NE(r.out.find("\nOutlook: About 10 minutes: cluster-autoscaler adds a node to pool "
                       "gpu-t4 for it.\n"),
            std::string::npos)
      << r.out;
  r = predict("gpu-worker.yaml", 1, example("pools.yaml"), "json");
  ASSERT_EQ(r.code, kOk) << r.err;
  EXPECT_EQ(boost::json::parse(r.out).at("outlook").at("kind"), "new-node") << r.out;
  // Many replicas have no one outlook.
  r = predict("gpu-worker.yaml", 3, example("pools.yaml"));
  EXPECT_EQ(r.out.find("Outlook:"), std::string::npos) << r.out;
}

TEST(PredictPools, ReplicasBeyondEveryMaxSizeExitWithThree) {
  CliRun r = predict("gpu-worker.yaml", 12, example("pools.yaml"));
  EXPECT_EQ(r.code, kUnschedulable) << r.err << r.out;
  EXPECT_NE(r.out.find("gpu-t4      1         1  ~10 min   $0.73/h added, at max size 2\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("gpu-a100    4         4  ~12 min   $14.68/h added, size 0: template from "
                       "configuration, at max size 4\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Not schedulable on any pool: 7 replica(s): max size 4 of pool gpu-a100 "
                       "reached; max size 2 of pool gpu-t4 reached\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  dask-workers: Insufficient nvidia.com/gpu\n"), std::string::npos)
      << r.out;
}

TEST(PredictPools, InferredPoolsAreNoted) {
  CliRun r = predict("dask-worker.yaml", 12, "-", "table",
                     "apiVersion: tightpack.io/v1alpha1\nkind: NodePools\n");
  ASSERT_EQ(r.code, kOk) << r.err << r.out;
  EXPECT_NE(r.out.find("Note: pools inferred from node labels: core-pool (2 nodes), dask-workers "
                       "(2 nodes), gpu-t4 (1 node); their min and max sizes are unknown"),
            std::string::npos)
      << r.out;
  // Defaults: the inferred pool grows the same, in the default provisioning time.
  EXPECT_NE(
      r.out.find("dask-workers    3        11  ~3 min    preemptible, +1 other pending pod\n"),
      std::string::npos)
      << r.out;
}

TEST(PredictPools, WithoutPoolsNothingChanges) {
  CliRun r = run_cli({"predict", "--cluster", example("cluster.json"), "--pod",
                      example("dask-worker.yaml"), "--replicas", "12"});
  EXPECT_EQ(r.code, kUnschedulable);
  EXPECT_EQ(r.out.find("Scale-up"), std::string::npos) << r.out;
}

TEST(PredictPools, BadPoolsDocumentNamesFileFieldAndValue) {
  CliRun r = predict("dask-worker.yaml", 2, "-", "table",
                     "apiVersion: tightpack.io/v1alpha1\nkind: NodePools\npools:\n"
                     "  - {name: gpu-t4, maxsize: 3}\n");
  EXPECT_EQ(r.code, kInputError);
  EXPECT_NE(r.err.find("tightpack predict: -: $.pools[0].maxsize: unknown field \"maxsize\""),
            std::string::npos)
      << r.err;
  r = predict("dask-worker.yaml", 2, "-", "table",
              "apiVersion: tightpack.io/v1alpha1\nkind: NodePools\npools:\n"
              "  - {name: gpu-t4, provisioningTime: 10min}\n");
  EXPECT_EQ(r.code, kInputError);
  EXPECT_NE(r.err.find("$.pools[0].provisioningTime: invalid duration \"10min\""),
            std::string::npos)
      << r.err;
  r = run_cli({"predict", "--cluster", "-", "--pod", example("dask-worker.yaml"), "--replicas", "1",
               "--pools", "-"});
  EXPECT_EQ(r.code, kUsage);
  EXPECT_NE(r.err.find("only one of --cluster, --pod and --pools"), std::string::npos) << r.err;
}

TEST(PredictPools, HelpNamesTheOption) {
  CliRun r = run_cli({"predict", "--help"});
  EXPECT_NE(r.out.find("--pools FILE"), std::string::npos) << r.out;
  r = run_cli({"--help"});
  EXPECT_NE(r.out.find("[--pools FILE]"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tightpack::cli
