// `tightpack advise` on examples/advise (the DaskHub day's pools) and on the
// sidebar's demo cluster (examples/daskhub-gke).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "cli/cli.hpp"
#include "cli_run.hpp"

namespace tightpack::cli {
namespace {

using testing::CliRun;
using testing::run_cli;

std::string example(const std::string& file) {
  return std::string(TIGHTPACK_SOURCE_DIR) + "/examples/" + file;
}

std::vector<std::string> advise_args(std::vector<std::string> more) {
  std::vector<std::string> args{"advise",
                                "--cluster",
                                example("advise/cluster.json"),
                                "--pod",
                                example("advise/dask-worker.yaml"),
                                "--pools",
                                example("advise/pools.yaml")};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(AdviseCli, FourCpuWorkersTwoPerNodeAt3950m) {
  CliRun r = run_cli(advise_args({"--output", "json"}));
  ASSERT_EQ(r.code, kOk) << r.err;
  const auto doc = boost::json::parse(r.out).as_object();
  ASSERT_EQ(doc.at("pools").as_array().size(), 1u) << doc;
  const auto& p = doc.at("pools").at(0).as_object();
  EXPECT_EQ(p.at("pool").as_string(), "dask-workers");
  EXPECT_EQ(p.at("perNode").as_int64(), 1);
  EXPECT_EQ(p.at("binding").as_string(), "cpu");
  EXPECT_EQ(p.at("suggestions").at(0).at("requests").at("cpu").as_string(), "3950m");
  EXPECT_FALSE(doc.contains("fixes"));  // no --replicas: the tiling only
}

TEST(AdviseCli, TheTableSaysWhatTheShapeSavesAtThisScale) {
  CliRun r = run_cli(advise_args({"--replicas", "40"}));
  ASSERT_EQ(r.code, kOk) << r.err;
  EXPECT_NE(r.out.find("Pool dask-workers: 1 per new node, bound by cpu; idle cpu 49%"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  2 per node with cpu 3950m (-1.2%)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("40 copies as the pod is: 40 of 40 run (0 now, 40 after scale-up) on 40 "
                       "node(s), 40 added\n"
                       "With cpu 3950m (-1.2%): 40 of 40 run (0 now, 40 after scale-up) on 20 "
                       "node(s), 20 added\n"),
            std::string::npos)
      << r.out;
}

TEST(AdviseCli, CopiesThatNeverRunExitThreeWithTheFixes) {
  CliRun r = run_cli({"advise", "--cluster", example("daskhub-gke/cluster.json"), "--pod",
                      example("daskhub-gke/dask-worker.yaml"), "--pools",
                      example("daskhub-gke/home-disk/pools.yaml"), "--replicas", "60"});
  ASSERT_EQ(r.code, kUnschedulable) << r.err << r.out;
  EXPECT_NE(r.out.find("Fixes, best first:\n  1. "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("nvidia.com/gpu"), std::string::npos) << r.out;
}

TEST(AdviseCli, BadInputNamesTheFieldAndValue) {
  CliRun replicas = run_cli(advise_args({"--replicas", "0"}));
  EXPECT_EQ(replicas.code, kUsage);
  EXPECT_NE(replicas.err.find("--replicas \"0\" is not a whole number from 1 to 1000000"),
            std::string::npos)
      << replicas.err;
  CliRun pod = run_cli({"advise", "--cluster", example("advise/cluster.json"), "--pod", "-"},
                       R"({"metadata": {"name": "w"}, "spec": {"containers": [{"name": "w",
                           "resources": {"requests": {"cpu": "lots"}}}]}})");
  EXPECT_EQ(pod.code, kInputError);
  EXPECT_NE(pod.err.find("cpu"), std::string::npos) << pod.err;
  EXPECT_NE(pod.err.find("lots"), std::string::npos) << pod.err;
  CliRun missing = run_cli({"advise", "--cluster", example("advise/cluster.json")});
  EXPECT_EQ(missing.code, kUsage);
  EXPECT_NE(missing.err.find("--pod is required"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace tightpack::cli

namespace tightpack::cli {
namespace {

// pack-report's levers on a short day of examples/advise's pools: 4-cpu
// workers of two users, tiled to 3950m.
std::string short_day() {
  return R"({"cluster": {"nodes": [{"metadata": {"name": "core-0"},
      "status": {"allocatable": {"cpu": "3920m", "memory": "12Gi", "pods": "110"}}}], "pods": []},
    "end": "3h",
    "pools": {"apiVersion": "tightpack.io/v1alpha1", "kind": "NodePools", "inferPools": false,
      "pools": [{"name": "dask-workers", "minSize": 0, "maxSize": 40, "template": {
        "labels": {"cloud.google.com/gke-nodepool": "dask-workers"},
        "allocatable": {"cpu": "7910m", "memory": "60Gi", "pods": "110"}}}]},
    "events": [
      {"at": "0m", "start": "alice", "replicas": 6, "pod": {"metadata": {"name": "w",
        "labels": {"dask.org/component": "worker"}}, "spec": {"containers": [{"name": "w",
        "resources": {"requests": {"cpu": "4", "memory": "16Gi"}}}]}}},
      {"at": "60m", "stop": "alice"},
      {"at": "75m", "start": "bob", "replicas": 6, "pod": {"metadata": {"name": "w",
        "labels": {"dask.org/component": "worker"}}, "spec": {"containers": [{"name": "w",
        "resources": {"requests": {"cpu": "4", "memory": "16Gi"}}}]}}},
      {"at": "120m", "stop": "bob"}]})";
}

TEST(PackReportCli, TileListsTheShapesAndUnneededTimesCompareTheDay) {
  CliRun r = run_cli({"pack-report", "--tile", "--unneeded-times", "5m,2m", "-"}, short_day());
  ASSERT_EQ(r.code, kOk) << r.err;
  EXPECT_NE(r.out.find("Tiled (--tile): workloads at their pool's first shape that tiles its "
                       "node\n  2 workload(s) on dask-workers: 1 -> 2 per node, cpu 4 -> 3950m\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("--scale-down-unneeded-time, workloads tiled: node-hours / pod-hours "
                       "waiting for a node / nodes added\nTIME"),
            std::string::npos)
      << r.out;
  for (const char* time : {"\n10m ", "\n5m ", "\n2m "})
    EXPECT_NE(r.out.find(time), std::string::npos) << time << r.out;
  CliRun json = run_cli(
      {"pack-report", "--tile", "--unneeded-times", "5m", "--output", "json", "-"}, short_day());
  ASSERT_EQ(json.code, kOk) << json.err;
  auto doc = boost::json::parse(json.out).as_object();
  EXPECT_EQ(doc.at("tiled").at(0).at("to").at("cpu"), "3950m");
  EXPECT_EQ(doc.at("unneededTimes").at(0).at("unneededTime"), "5m");
  EXPECT_TRUE(doc.at("profiles").at(0).as_object().contains("podHoursWaiting"));
}

TEST(PackReportCli, ABadUnneededTimeIsNamed) {
  CliRun r = run_cli({"pack-report", "--unneeded-times", "5m,soon", "-"}, short_day());
  EXPECT_EQ(r.code, kUsage);
  EXPECT_NE(r.err.find("--unneeded-times \"soon\" is not a Go duration"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace tightpack::cli
