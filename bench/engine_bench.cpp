// One decision (filter + score over every node) and the replica simulation.
// Results and the command that reproduces them: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <boost/json.hpp>
#include <map>
#include <optional>

#include "synthetic_cluster.hpp"
#include "tightpack/built_in_profiles.hpp"
#include "tightpack/decode.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/simulate.hpp"

namespace tightpack::bench {
namespace {

Profile profile_named(int which) {
  if (which == 0) return default_profile();
  auto doc = parse_json(kZ2jhUserSchedulerConfig);
  return decode_scheduler_configuration(*doc, JsonPath())->profiles.front();
}

const char* profile_label(int which) {
  return which == 0 ? "default-scheduler" : "z2jh-user-scheduler";
}

// Cluster construction is not what is measured; build each size once.
const Cluster& cluster_of(size_t nodes) {
  static std::map<size_t, Cluster> cache;
  auto it = cache.find(nodes);
  if (it == cache.end()) {
    SyntheticCluster s = make_cluster(nodes, 30);
    it = cache.emplace(nodes, std::move(Cluster::build(std::move(s.nodes), s.pods).value())).first;
  }
  return it->second;
}

// A decision for a pod the engine has not seen: PreFilter/PreScore work
// (compiling the pod against the cluster) included.
void BM_Decision(benchmark::State& state) {
  const Cluster& cluster = cluster_of(static_cast<size_t>(state.range(0)));
  Profile profile = profile_named(static_cast<int>(state.range(1)));
  Pod pod = dask_worker();
  size_t feasible = 0;
  for (auto _ : state) {
    auto plan = PodPlan::make(cluster, profile, pod);
    PlanScratch scratch;
    Decision d = decide(*plan, cluster, scratch);
    feasible = d.feasible.size();
    benchmark::DoNotOptimize(d.chosen);
  }
  state.SetLabel(profile_label(static_cast<int>(state.range(1))));
  state.counters["feasible"] = static_cast<double>(feasible);
}
BENCHMARK(BM_Decision)
    ->ArgsProduct({{100, 1000, 5000}, {0, 1}})
    ->ArgNames({"nodes", "profile"})
    ->Unit(benchmark::kMicrosecond);

// The next decision for a pod template already compiled, after one other pod
// landed on one node: what the scheduler does for the next Dask worker of a
// burst. Only the changed node is filtered and scored again.
void BM_DecisionSameTemplate(benchmark::State& state) {
  Cluster cluster = cluster_of(static_cast<size_t>(state.range(0)));
  Profile profile = profile_named(static_cast<int>(state.range(1)));
  Pod pod = dask_worker();
  auto plan = PodPlan::make(cluster, profile, pod);
  PlanScratch scratch;
  Pod other = dask_worker();
  other.containers.mut()[0].requests = {{"cpu", 10}, {"memory", 10 * 1024 * 1024}};
  BoundPod small{"daskhub/small", 0, cluster.usage_of(other)};
  NodeIndex next = 0;
  for (auto _ : state) {
    // Toggle a small pod on one node so that exactly that node changes.
    if (cluster.pods_on(next).back().key == "daskhub/small") {
      cluster.remove(next, {cluster.pods_on(next).size() - 1});
    } else {
      cluster.place(next, small);
    }
    next = (next + 7) % static_cast<NodeIndex>(cluster.size());
    Decision d = decide(*plan, cluster, scratch);
    benchmark::DoNotOptimize(d.chosen);
  }
  state.SetLabel(profile_label(static_cast<int>(state.range(1))));
}
BENCHMARK(BM_DecisionSameTemplate)
    ->ArgsProduct({{100, 1000, 5000}, {0, 1}})
    ->ArgNames({"nodes", "profile"})
    ->Unit(benchmark::kMicrosecond);

// 1,000 replicas of a Dask worker placed one after another on 1,000 nodes.
void BM_Simulate(benchmark::State& state) {
  const size_t nodes = static_cast<size_t>(state.range(0));
  const int64_t replicas = state.range(1);
  Profile profile = profile_named(static_cast<int>(state.range(2)));
  Pod pod = dask_worker();
  const Cluster& base = cluster_of(nodes);
  int64_t placed = 0;
  std::optional<Cluster> cluster;
  for (auto _ : state) {
    // Copying the cluster and destroying the last copy are not measured.
    state.PauseTiming();
    cluster.reset();
    cluster.emplace(base);
    state.ResumeTiming();
    auto result = simulate_replicas(*cluster, profile, pod, replicas);
    placed = 0;
    for (const auto& r : result->replicas) placed += r.node.has_value();
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations() * replicas);
  state.SetLabel(profile_label(static_cast<int>(state.range(2))));
  state.counters["placed"] = static_cast<double>(placed);
}
BENCHMARK(BM_Simulate)
    ->ArgsProduct({{1000}, {1000}, {0, 1}})
    ->ArgNames({"nodes", "replicas", "profile"})
    ->Unit(benchmark::kMillisecond);

// Replicas of a Dask worker template with topology spread constraints: zones
// (DoNotSchedule, maxSkew 1) and nodes (ScheduleAnyway), so that every
// placement moves the counts of a whole zone (SpreadReplicaIndex).
void BM_SimulateSpread(benchmark::State& state) {
  const size_t nodes = static_cast<size_t>(state.range(0));
  const int64_t replicas = state.range(1);
  Profile profile = profile_named(static_cast<int>(state.range(2)));
  Pod pod = dask_worker();
  pod.labels = {{"app", "dask-worker"}};
  for (const auto& [key, action] : {std::pair{"topology.kubernetes.io/zone", "DoNotSchedule"},
                                    std::pair{"kubernetes.io/hostname", "ScheduleAnyway"}}) {
    TopologySpreadConstraint c;
    c.max_skew = 1;
    c.topology_key = key;
    c.when_unsatisfiable = action;
    c.label_selector = LabelSelector{{{"app", "dask-worker"}}, {}};
    pod.topology_spread.push_back(std::move(c));
  }
  const Cluster& base = cluster_of(nodes);
  int64_t placed = 0;
  std::optional<Cluster> cluster;
  for (auto _ : state) {
    // Copying the cluster and destroying the last copy are not measured.
    state.PauseTiming();
    cluster.reset();
    cluster.emplace(base);
    state.ResumeTiming();
    auto result = simulate_replicas(*cluster, profile, pod, replicas);
    placed = 0;
    for (const auto& r : result->replicas) placed += r.node.has_value();
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations() * replicas);
  state.SetLabel(profile_label(static_cast<int>(state.range(2))));
  state.counters["placed"] = static_cast<double>(placed);
}
BENCHMARK(BM_SimulateSpread)
    ->ArgsProduct({{5000}, {1, 1000}, {0, 1}})
    ->ArgNames({"nodes", "replicas", "profile"})
    ->Unit(benchmark::kMillisecond);

// Snapshot text to a Cluster: JSON parse, decode, build. Split into stages.
void BM_Snapshot(benchmark::State& state) {
  const std::string& text = snapshot_text(static_cast<size_t>(state.range(0)));
  const int stage = static_cast<int>(state.range(1));  // 0 parse, 1 parse+decode, 2 all
  for (auto _ : state) {
    auto doc = parse_json(text);
    if (stage >= 1) {
      ClusterObjects objects;
      auto status = decode_objects(*doc, JsonPath(), objects);
      if (stage >= 2) {
        auto cluster = Cluster::build(std::move(objects.nodes), objects.pods);
        benchmark::DoNotOptimize(cluster);
      }
      benchmark::DoNotOptimize(objects);
    }
    benchmark::DoNotOptimize(doc);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.SetLabel(stage == 0 ? "parse" : stage == 1 ? "parse+decode" : "parse+decode+build");
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_Snapshot)
    ->ArgsProduct({{1000, 5000}, {0, 1, 2}})
    ->ArgNames({"nodes", "stage"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tightpack::bench

BENCHMARK_MAIN();
