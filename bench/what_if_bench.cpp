// The what-if questions the JupyterLab sidebar asks, natively: the figures
// beside which bench/RESULTS.md puts the WebAssembly build's.
#include <benchmark/benchmark.h>

#include <boost/json.hpp>
#include <map>
#include <optional>

#include "tightpack/advice/advice.hpp"
#include "tightpack/what_if/spawn_question.hpp"
#include "tightpack/what_if/what_if.hpp"
#include "what_if_inputs.hpp"

namespace tightpack::bench {
namespace {

const std::string& snapshot(size_t nodes) {
  static std::map<size_t, std::string> cache;
  auto it = cache.find(nodes);
  if (it != cache.end()) return it->second;
  return cache[nodes] = what_if_snapshot(nodes);
}

const char* profile_name(int64_t p) {
  return p == 0 ? "default" : "tightpack";
}

// Snapshot text to a loaded cluster with its inferred pools: what
// Engine.loadCluster does.
void BM_WhatIfLoad(benchmark::State& state) {
  const std::string& text = snapshot(static_cast<size_t>(state.range(0)));
  std::optional<Result<WhatIfCluster>> cluster;
  for (auto _ : state) {
    cluster.emplace(load_what_if_cluster(text, "", ""));
    if (!*cluster) state.SkipWithError(cluster->error().what().c_str());
    benchmark::DoNotOptimize(cluster);
    // Freeing 50,000 pods is not part of loading them.
    state.PauseTiming();
    cluster.reset();
    state.ResumeTiming();
  }
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_WhatIfLoad)->Arg(1000)->Arg(5000)->ArgName("nodes")->Unit(benchmark::kMillisecond);

// 200 Dask workers on a loaded cluster, request text to answer text: what
// Cluster.place does.
void BM_WhatIfPlace(benchmark::State& state) {
  auto cluster = load_what_if_cluster(snapshot(static_cast<size_t>(state.range(0))), "", "");
  const std::string request = place_request(200, profile_name(state.range(1)));
  for (auto _ : state) {
    std::string answer = place_text(*cluster, request);
    if (answer.rfind("{\"error\"", 0) == 0) state.SkipWithError(answer.c_str());
    benchmark::DoNotOptimize(answer);
  }
  state.SetLabel(profile_name(state.range(1)));
}
BENCHMARK(BM_WhatIfPlace)
    ->ArgsProduct({{1000}, {0, 1}})
    ->ArgNames({"nodes", "profile"})
    ->Unit(benchmark::kMillisecond);

// The advice for the same question: the tiling of each pool and, when
// copies never run (20,000 of the worker, beyond what the pools can grow
// to), every fix decided again; what Cluster.advise does.
void BM_WhatIfAdvise(benchmark::State& state) {
  auto cluster = load_what_if_cluster(snapshot(static_cast<size_t>(state.range(0))), "", "");
  const std::string request = place_request(static_cast<int>(state.range(1)), "tightpack");
  std::string answer;
  for (auto _ : state) {
    answer = advice::advise_text(*cluster, request);
    if (answer.rfind("{\"error\"", 0) == 0) state.SkipWithError(answer.c_str());
    benchmark::DoNotOptimize(answer);
  }
  size_t fixes = 0;
  for (size_t at = answer.find("\"gained\""); at != std::string::npos;
       at = answer.find("\"gained\"", at + 1))
    ++fixes;
  state.counters["fixes"] = static_cast<double>(fixes);
}
BENCHMARK(BM_WhatIfAdvise)
    ->ArgsProduct({{1000}, {200, 20000}})
    ->ArgNames({"nodes", "replicas"})
    ->Unit(benchmark::kMillisecond);

// The hub's spawn page, as the daemon answers POST /spawn/v1/profiles: the
// watch cache copied (here a decoded snapshot), the user's new home claim
// added, the cluster built, and six notebook pods of hub shapes placed alone
// with cluster-autoscaler's scale-up over the inferred pools: a small and a
// 4-core one and a GPU one that fit now, a 15.5-core one that needs a new
// node, a 64-core one no pool can take, a GPU one with the new claim.
void BM_SpawnPageAnswer(benchmark::State& state) {
  const auto decoded = pools::decode_cluster_snapshot(
      boost::json::parse(snapshot(static_cast<size_t>(state.range(0)))), JsonPath());
  if (!decoded) {
    state.SkipWithError(decoded.error().what().c_str());
    return;
  }
  auto notebook = [](const std::string& id, const std::string& requests, bool gpu, bool home) {
    return R"({"id": ")" + id + R"(", "pod": {"metadata": {"name": "jupyter-alice"}, "spec": {)" +
           (gpu ? R"("tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],)"
                : "") +
           (home
                ? R"("volumes": [{"name": "home", "persistentVolumeClaim": {"claimName": "claim-alice"}}],)"
                : "") +
           R"("containers": [{"name": "notebook", "image": "pangeo/pangeo-notebook:2024.01.01",
             "resources": {"requests": )" +
           requests + R"(}}]}}})";
  };
  const std::string text =
      R"({"namespace": "daskhub", "user": "alice",
    "claims": [{"metadata": {"name": "claim-alice"}, "spec": {"accessModes": ["ReadWriteOnce"],
      "resources": {"requests": {"storage": "10Gi"}}}}],
    "pods": [)" +
      notebook("small", R"({"cpu": "500m", "memory": "2Gi"})", false, false) + "," +
      notebook("medium", R"({"cpu": "4", "memory": "16Gi"})", false, false) + "," +
      notebook("gpu", R"({"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"})", true, false) +
      "," + notebook("large", R"({"cpu": "15500m", "memory": "64Gi"})", false, false) + "," +
      notebook("huge", R"({"cpu": "64", "memory": "64Gi"})", false, false) + "," +
      notebook("gpu-home", R"({"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"})", true, true) +
      "]}";
  const auto question = decode_spawn_question(boost::json::parse(text));
  if (!question) {
    state.SkipWithError(question.error().what().c_str());
    return;
  }
  std::map<std::string, int> kinds;
  for (auto _ : state) {
    pools::ClusterSnapshot copy = *decoded;
    if (!add_new_claims(copy, *question)) state.SkipWithError("claims");
    auto cluster = WhatIfCluster::from_snapshot(std::move(copy), JsonPath());
    if (!cluster) {
      state.SkipWithError(cluster.error().what().c_str());
      break;
    }
    cluster->use_pools(pools::PoolsConfig{});
    const boost::json::object answer = answer_spawn_question(*cluster, *question);
    kinds.clear();
    for (const auto& a : answer.at("answers").as_array()) {
      const auto* outlook = a.as_object().if_contains("outlook");
      ++kinds[outlook ? std::string(outlook->at("kind").as_string()) : "error"];
    }
    benchmark::DoNotOptimize(answer);
  }
  for (const auto& [kind, n] : kinds) state.counters[kind] = n;
}
BENCHMARK(BM_SpawnPageAnswer)->Arg(1000)->ArgName("nodes")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tightpack::bench
