// The what-if questions the JupyterLab sidebar asks, natively: the figures
// beside which bench/RESULTS.md puts the WebAssembly build's.
#include <benchmark/benchmark.h>

#include <map>
#include <optional>

#include "tightpack/advice/advice.hpp"
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

}  // namespace
}  // namespace tightpack::bench
