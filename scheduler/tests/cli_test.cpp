#include "cli/cli.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <sstream>
#include <vector>

#include "cli_run.hpp"

namespace tightpack::cli {
namespace {

using testing::CliRun;
using testing::run_cli;

// Every command `tightpack --help` lists has a synopsis there and its own help,
// the same by `help NAME` and `NAME --help`, that starts with its usage line.
TEST(Cli, HelpForEveryCommand) {
  CliRun overview = run_cli({"--help"});
  ASSERT_EQ(overview.code, kOk);
  const size_t commands = overview.out.find("\nCommands:\n");
  ASSERT_NE(commands, std::string::npos) << overview.out;
  std::istringstream listed(overview.out.substr(commands + 11));
  std::vector<std::string> names;
  for (std::string line; std::getline(listed, line) && !line.empty();) {
    if (line.size() > 2 && line[2] != ' ') names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"replay", "autoscale", "forecast", "predict", "advise",
                                      "admit", "strip", "pack-report", "moves", "schedule"}));
  for (const std::string& name : names) {
    EXPECT_NE(overview.out.find("\n  tightpack " + name + " "), std::string::npos) << name;
    CliRun help = run_cli({"help", name});
    CliRun flag = run_cli({name, "--help"});
    EXPECT_EQ(help.code, kOk) << name;
    EXPECT_EQ(flag.code, kOk) << name;
    EXPECT_EQ(help.out, flag.out) << name;
    EXPECT_EQ(help.out.rfind("Usage: tightpack " + name + " ", 0), 0u) << help.out;
  }
  EXPECT_EQ(run_cli({"help", "frobnicate"}).code, kUsage);
}

TEST(Cli, UnknownCommandIsAUsageError) {
  CliRun r = run_cli({"frobnicate"});
  EXPECT_EQ(r.code, kUsage);
  EXPECT_NE(r.err.find("unknown command \"frobnicate\""), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tightpack::cli

namespace tightpack::cli {
namespace {

std::string source(const std::string& relative) {
  return std::string(TIGHTPACK_SOURCE_DIR) + "/" + relative;
}

TEST(Predict, DefaultProfileSpreadsAndUserSchedulerPacks) {
  auto spread =
      run_cli({"predict", "--cluster", source("examples/daskhub-demo/cluster.json"), "--pod",
               source("examples/daskhub-demo/dask-worker.yaml"), "--replicas", "8", "--config",
               source("config/default-scheduler.yaml"), "--output", "json"});
  auto pack = run_cli({"predict", "--cluster", source("examples/daskhub-demo/cluster.json"),
                       "--pod", source("examples/daskhub-demo/dask-worker.yaml"), "--replicas", "8",
                       "--config", source("config/z2jh-user-scheduler.yaml"), "--output", "json"});
  ASSERT_EQ(spread.code, kOk) << spread.err;
  ASSERT_EQ(pack.code, kOk) << pack.err;
  auto nodes_used = [](const std::string& out) {
    return boost::json::parse(out).as_object().at("nodes").as_array().size();
  };
  EXPECT_EQ(nodes_used(spread.out), 3u) << spread.out;
  EXPECT_EQ(nodes_used(pack.out), 2u) << pack.out;
}

TEST(Predict, UnschedulableReplicasExitWithThreeAndTheMessage) {
  auto r = run_cli({"predict", "--cluster", source("examples/daskhub-demo/cluster.json"), "--pod",
                    source("examples/daskhub-demo/gpu-notebook.yaml"), "--replicas", "2",
                    "--config", source("config/z2jh-user-scheduler.yaml")});
  EXPECT_EQ(r.code, kUnschedulable);
  EXPECT_NE(r.out.find("1 replica(s) unschedulable: 0/10 nodes are available:"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Insufficient nvidia.com/gpu"), std::string::npos) << r.out;
}

TEST(Admit, DefaultsAdmitsAndNamesWhatItCannotRead) {
  const std::string gpu =
      R"({"spec": {"containers": [{"name": "nb", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}})";
  auto plain = run_cli({"admit"}, gpu);
  EXPECT_EQ(plain.code, kOk) << plain.err;
  EXPECT_NE(plain.out.find(R"("requests":{"nvidia.com/gpu":"1"})"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find(R"("by":"DefaultTolerationSeconds")"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("ExtendedResourceToleration"), std::string::npos) << plain.out;
  auto gke = run_cli({"admit", "--extended-resource-toleration", "-"}, gpu);
  EXPECT_NE(
      gke.out.find(R"({"by":"ExtendedResourceToleration","toleration":{"key":"nvidia.com/gpu")"),
      std::string::npos)
      << gke.out;
  auto bad = run_cli({"admit"}, R"({"spec": {"containers": [{"resources": {"limits": "1"}}]}})");
  EXPECT_EQ(bad.code, kInputError);
  EXPECT_EQ(bad.err,
            "tightpack admit: -: $.spec.containers[0].resources.limits: expected an object, got a "
            "string\n");
  EXPECT_EQ(run_cli({"admit", "a", "b"}).code, kUsage);
}

TEST(Strip, CutsPodsOfAListAndPrintsTheFields) {
  auto cut = run_cli({"strip"}, R"(apiVersion: v1
kind: List
items:
- kind: Pod
  metadata: {name: w, annotations: {kubectl.kubernetes.io/last-applied-configuration: "{}"}}
  spec:
    containers: [{name: w, env: [{name: TOKEN, value: s3cret}]}]
  status: {startTime: "2026-12-07T00:00:00Z", podIP: 10.0.0.1}
- kind: Service
  metadata: {name: s}
)");
  EXPECT_EQ(cut.code, kOk) << cut.err;
  EXPECT_EQ(
      cut.out,
      R"({"apiVersion":"v1","kind":"List","items":[{"kind":"Pod","metadata":{"annotations":{},)"
      R"("name":"w"},"spec":{"containers":[{"name":"w"}]},"status":{"startTime":)"
      R"("2026-12-07T00:00:00Z"}},{"kind":"Service","metadata":{"name":"s"}}]})"
      "\n");
  auto fields = run_cli({"strip", "--fields"});
  EXPECT_EQ(fields.code, kOk) << fields.err;
  EXPECT_NE(fields.out.find(R"("deletionTimestamp":true)"), std::string::npos) << fields.out;
  auto bad = run_cli({"strip"}, "{");
  EXPECT_EQ(bad.code, kInputError);
  EXPECT_EQ(bad.err.rfind("tightpack strip: ", 0), 0u) << bad.err;
  EXPECT_EQ(run_cli({"strip", "--fields", "pods.json"}).code, kUsage);
  EXPECT_EQ(run_cli({"strip", "a", "b"}).code, kUsage);
}

TEST(Predict, AdmitsThePodFirst) {
  // The demo's GPU pool is tainted nvidia.com/gpu; a GKE API server makes a GPU pod tolerate it,
  // and the demo's nodes are GKE's: unless told otherwise, the pod is admitted so.
  const std::string gpu = R"({"metadata": {"name": "g"}, "spec": {"containers": [{"name": "nb",
      "resources": {"limits": {"nvidia.com/gpu": "1", "cpu": "1", "memory": "4Gi"}}}]}})";
  const std::vector<std::string> args{
      "predict",    "--cluster", source("examples/daskhub-demo/cluster.json"), "--pod", "-",
      "--replicas", "1"};
  auto gke = run_cli(args, gpu);
  EXPECT_EQ(gke.code, kOk) << gke.out;
  EXPECT_NE(
      gke.out.find("Admitted: tolerates nvidia.com/gpu:NoSchedule (ExtendedResourceToleration)"),
      std::string::npos)
      << gke.out;
  EXPECT_NE(gke.out.find("Admitted: container nb requests nvidia.com/gpu 1 (its limit)"),
            std::string::npos)
      << gke.out;
  auto without = args;
  without.push_back("--no-extended-resource-toleration");
  auto plain = run_cli(without, gpu);
  EXPECT_EQ(plain.code, kUnschedulable) << plain.out;
  EXPECT_NE(plain.out.find("untolerated taint"), std::string::npos) << plain.out;
  auto with = args;
  with.push_back("--extended-resource-toleration");
  EXPECT_EQ(run_cli(with, gpu).out, gke.out);
}

TEST(Predict, PodFromStandardInput) {
  auto r =
      run_cli({"predict", "--cluster", source("examples/daskhub-demo/cluster.json"), "--pod", "-",
               "--replicas", "1"},
              "{\"metadata\": {\"name\": \"p\"}, \"spec\": {\"containers\": [{\"name\": \"c\", "
              "\"resources\": {\"requests\": {\"cpu\": \"100m\"}}}]}}");
  EXPECT_EQ(r.code, kOk) << r.err;
  EXPECT_NE(r.out.find("1 of 1 replicas placed"), std::string::npos) << r.out;
}

TEST(Predict, BadInputNamesTheFieldAndValue) {
  auto r =
      run_cli({"predict", "--cluster", source("examples/daskhub-demo/cluster.json"), "--pod", "-",
               "--replicas", "1"},
              "{\"metadata\": {\"name\": \"p\"}, \"spec\": {\"containers\": [{\"name\": \"c\", "
              "\"resources\": {\"requests\": {\"cpu\": \"12Qi\"}}}]}}");
  EXPECT_EQ(r.code, kInputError);
  EXPECT_NE(r.err.find("$.spec.containers[0].resources.requests.cpu"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"12Qi\""), std::string::npos) << r.err;
}

TEST(Predict, BuiltInProfilesByNameWithoutAConfiguration) {
  auto r = run_cli({"predict", "--cluster", source("examples/daskhub-demo/cluster.json"), "--pod",
                    source("examples/daskhub-demo/dask-worker.yaml"), "--replicas", "4",
                    "--scheduler-name", "tightpack"});
  EXPECT_EQ(r.code, kOk) << r.err;
  EXPECT_NE(r.out.find("Profile tightpack: 4 of 4 replicas placed"), std::string::npos) << r.out;
  auto unknown = run_cli({"predict", "--cluster", source("examples/daskhub-demo/cluster.json"),
                          "--pod", source("examples/daskhub-demo/dask-worker.yaml"), "--replicas",
                          "4", "--scheduler-name", "spread-everything"});
  EXPECT_EQ(unknown.code, kUsage);
  EXPECT_NE(unknown.err.find("no profile \"spread-everything\""), std::string::npos) << unknown.err;
}

// --release: the kube-scheduler release to decide and word as; zero-to-jupyterhub's
// released charts run v1.30.14, which names the untolerated taint.
TEST(Predict, ReleaseWordsTheAnswerAsThatKubeScheduler) {
  auto predict = [](const char* release) {
    std::vector<std::string> args{"predict",
                                  "--cluster",
                                  source("examples/daskhub-gke/cluster.json"),
                                  "--pod",
                                  source("examples/daskhub-gke/dask-worker.yaml"),
                                  "--replicas",
                                  "400",
                                  "--scheduler-name",
                                  "most-allocated"};
    if (*release) {
      args.push_back("--release");
      args.push_back(release);
    }
    return run_cli(args);
  };
  auto v130 = predict("v1.30"), v137 = predict("");
  EXPECT_NE(v130.out.find("node(s) had untolerated taint {"), std::string::npos)
      << v130.out << v130.err;
  EXPECT_NE(v137.out.find("node(s) had untolerated taint(s)"), std::string::npos)
      << v137.out << v137.err;
  auto bad = predict("v1.26");
  EXPECT_EQ(bad.code, kUsage);
  EXPECT_NE(bad.err.find("unknown kube-scheduler release \"v1.26\""), std::string::npos) << bad.err;
}

TEST(Predict, UsageErrors) {
  EXPECT_EQ(run_cli({"predict", "--pod", "x", "--replicas", "1"}).code, kUsage);
  EXPECT_EQ(run_cli({"predict", "--cluster", "x", "--pod", "y", "--replicas", "0"}).code, kUsage);
  EXPECT_EQ(
      run_cli({"predict", "--cluster", "x", "--pod", "y", "--replicas", "2", "--output", "xml"})
          .code,
      kUsage);
  EXPECT_EQ(run_cli({"predict", "--cluster", "-", "--pod", "-", "--replicas", "2"}).code, kUsage);
  auto missing =
      run_cli({"predict", "--cluster", "/nonexistent.json", "--pod", "y", "--replicas", "2"});
  EXPECT_EQ(missing.code, kInputError);
  EXPECT_NE(missing.err.find("cannot read /nonexistent.json"), std::string::npos) << missing.err;
}

TEST(Replay, JsonlReadsLinesAndPrintsOneResultEach) {
  std::string scenario =
      R"({"profile":"default","nodes":[{"metadata":{"name":"n"},"status":{"allocatable":{"cpu":"1","memory":"1Gi","pods":"10"}}}],"pods":[],"incoming":[{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"2"}}}]}}]})";
  auto r = run_cli({"replay", "--jsonl", "-"}, scenario + "\n\nnot json\n" + scenario + "\n");
  ASSERT_EQ(r.code, kOk);
  std::istringstream lines(r.out);
  std::string line;
  std::vector<std::string> out;
  while (std::getline(lines, line)) out.push_back(line);
  ASSERT_EQ(out.size(), 3u) << r.out;
  EXPECT_NE(out[0].find("0/1 nodes are available: 1 Insufficient cpu."), std::string::npos)
      << out[0];
  EXPECT_NE(out[1].find("\"error\":\"invalid JSON at line 1"), std::string::npos) << out[1];
  EXPECT_EQ(out[0], out[2]);
}

}  // namespace
}  // namespace tightpack::cli
