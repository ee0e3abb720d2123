// A day of a DaskHub on GKE, as a seeded trace: users arrive over the
// working day, start a notebook (a bare pod, as KubeSpawner makes it), start
// Dask clusters of mixed sizes whose workers the Dask operator makes (each a
// one-replica Deployment: evictable, or not with --protect-workers), let
// adapt() shrink and grow them, and leave. The trace is replayed with
// cluster-autoscaler's scale-up and scale-down under each profile
// (core/src/packing), and node-hours per pool are printed: the figure in
// bench/RESULTS.md.
//
//   build/release/bench/tightpack_daskhub_day [--seed N] [--users N]
//       [--retire newest|upstream|node-aware] [--protect-workers]
//       [--consolidate none|move] [--unneeded-time DURATION] [--output table|json]
//       [--scenario FILE] [--check]
//
// --retire says which workers leave when adapt() shrinks a cluster (the
// scenario's "retire", docs/packing.md; default newest). --output json prints
// {"seed", "users", "retire", "workers", "lowerBound": node-hours,
//  "profiles": [{"profile", "nodeHours", "evicted", "busyNodeHours",
//  "repackNodeHours", "pendingAtEnd", "podHoursWaiting", "nodesAdded",
//  "pools": {pool: node-hours}}]}, and
// with --consolidate move (the scenario's "consolidate", docs/packing.md:
// nodes at most three quarters used emptied by moving their workers, make before break)
// "consolidate": "move" and each profile's "moves", "tasksInterrupted",
// "nodesEmptied", "workersMoved",
// "movesAbandoned", "emptiedTakenBack" and "moveOverlapWorkerHours": the
// interface outside checks run. --unneeded-time sets cluster-autoscaler's
// --scale-down-unneeded-time (a Go duration; the day's own is 10m) and adds
// "unneededTime" to the JSON. Node-hours split as idle (nodes without a
// workload pod: booting, unneeded, held by --scale-down-delay-after-add),
// busy beyond a repack (where placement and retirement left pods), the
// repack beyond the lower bound (the pods' shapes), and the lower bound.
//
// --check exits 1 unless every pod ran, all above the lower bound, and both
// packing profiles are at or below the default in node-hours and workers
// evicted; with --protect-workers, also tightpack ≤ zero-to-jupyterhub and
// no eviction (ctests run both).
#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "tightpack/packing/levers.hpp"
#include "tightpack/packing/pack_report.hpp"
#include "tightpack/pools/pools.hpp"

namespace json = boost::json;
using namespace tightpack;

namespace {

// SplitMix64: the same trace from every standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t uniform(int64_t lo, int64_t hi) {  // [lo, hi]
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool chance(int percent) { return uniform(1, 100) <= percent; }

 private:
  uint64_t s_;
};

json::object node_template(json::object labels, json::array taints, json::object allocatable) {
  return json::object{{"labels", std::move(labels)},
                      {"taints", std::move(taints)},
                      {"allocatable", std::move(allocatable)}};
}

json::object pools_doc() {
  json::array pools;
  pools.push_back(json::object{
      {"name", "core"},
      {"minSize", 1},
      {"maxSize", 3},
      {"pricePerHour", 0.19},
      {"template",
       node_template(json::object{{"cloud.google.com/gke-nodepool", "core"},
                                  {"hub.jupyter.org/node-purpose", "core"}},
                     json::array{},
                     json::object{{"cpu", "3920m"}, {"memory", "12Gi"}, {"pods", "110"}})}});
  pools.push_back(json::object{
      {"name", "user"},
      {"minSize", 0},
      {"maxSize", 20},
      {"pricePerHour", 0.47},
      {"template",
       node_template(
           json::object{{"cloud.google.com/gke-nodepool", "user"},
                        {"hub.jupyter.org/node-purpose", "user"}},
           json::array{json::object{
               {"key", "hub.jupyter.org/dedicated"}, {"value", "user"}, {"effect", "NoSchedule"}}},
           json::object{{"cpu", "7910m"}, {"memory", "48Gi"}, {"pods", "110"}})}});
  pools.push_back(json::object{
      {"name", "dask-workers"},
      {"minSize", 0},
      {"maxSize", 40},
      {"pricePerHour", 0.12},
      {"preemptible", true},
      {"template",
       node_template(json::object{{"cloud.google.com/gke-nodepool", "dask-workers"},
                                  {"cloud.google.com/gke-preemptible", "true"}},
                     json::array{json::object{
                         {"key", "dask"}, {"value", "worker"}, {"effect", "NoSchedule"}}},
                     json::object{{"cpu", "7910m"}, {"memory", "60Gi"}, {"pods", "110"}})}});
  pools.push_back(json::object{
      {"name", "gpu-t4"},
      {"minSize", 0},
      {"maxSize", 4},
      {"pricePerHour", 0.73},
      {"provisioningTime", "10m"},
      {"template",
       node_template(
           json::object{{"cloud.google.com/gke-nodepool", "gpu-t4"},
                        {"cloud.google.com/gke-accelerator", "nvidia-tesla-t4"}},
           json::array{json::object{
               {"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}},
           json::object{
               {"cpu", "7910m"}, {"memory", "26Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "1"}})}});
  return json::object{{"apiVersion", "tightpack.io/v1alpha1"},
                      {"kind", "NodePools"},
                      {"inferPools", false},
                      {"expander", "least-waste"},
                      {"pools", std::move(pools)}};
}

json::object core_node() {
  return json::object{
      {"metadata",
       json::object{{"name", "core-0"},
                    {"labels", json::object{{"kubernetes.io/hostname", "core-0"},
                                            {"cloud.google.com/gke-nodepool", "core"},
                                            {"hub.jupyter.org/node-purpose", "core"}}}}},
      {"status",
       json::object{
           {"allocatable", json::object{{"cpu", "3920m"}, {"memory", "12Gi"}, {"pods", "110"}}}}}};
}

json::object hub_pod() {
  return json::object{
      {"metadata",
       json::object{{"name", "hub-0"},
                    {"namespace", "jhub"},
                    {"ownerReferences",
                     json::array{json::object{
                         {"kind", "ReplicaSet"}, {"name", "hub-5d8f"}, {"controller", true}}}}}},
      {"spec",
       json::object{
           {"nodeName", "core-0"},
           {"containers",
            json::array{json::object{
                {"name", "hub"},
                {"resources", json::object{{"requests", json::object{{"cpu", "500m"},
                                                                     {"memory", "1Gi"}}}}}}}}}}};
}

json::object container(const std::string& cpu, const std::string& memory, bool gpu) {
  json::object requests{{"cpu", cpu}, {"memory", memory}};
  json::object resources;
  if (gpu) {
    // The API server refuses an extended resource requested without its limit;
    // KubeSpawner sets both (extra_resource_limits, guarantees).
    requests["nvidia.com/gpu"] = "1";
    resources["limits"] = json::object{{"nvidia.com/gpu", "1"}};
  }
  resources["requests"] = std::move(requests);
  return json::object{{"name", "main"},
                      {"image", "pangeo/pangeo-notebook:2024.01.15"},
                      {"resources", std::move(resources)}};
}

json::object notebook(const std::string& user, bool gpu) {
  json::array tolerations{json::object{{"key", "hub.jupyter.org/dedicated"},
                                       {"operator", "Equal"},
                                       {"value", "user"},
                                       {"effect", "NoSchedule"}}};
  json::object spec{{"containers", json::array{gpu ? container("3", "16Gi", true)
                                                   : container("500m", "4Gi", false)}}};
  if (gpu) {
    tolerations.push_back(
        json::object{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}});
    spec["nodeSelector"] = json::object{{"cloud.google.com/gke-accelerator", "nvidia-tesla-t4"}};
  } else {
    spec["nodeSelector"] = json::object{{"hub.jupyter.org/node-purpose", "user"}};
  }
  spec["tolerations"] = std::move(tolerations);
  return json::object{
      {"metadata", json::object{{"name", "jupyter"},
                                {"namespace", "jhub"},
                                {"labels", json::object{{"hub.jupyter.org/username", user}}}}},
      {"spec", std::move(spec)}};
}

// A worker as the dask-kubernetes operator makes it since 2023.6
// (build_worker_deployment_spec): a one-replica Deployment per worker, so the
// pod's controller is a ReplicaSet and cluster-autoscaler may evict it to
// remove its node, unless the worker group's template says safe-to-evict
// "false". The replicas of one group share a ReplicaSet here; to
// cluster-autoscaler one ReplicaSet or one per worker is the same verdict.
json::object worker(const std::string& cluster, int64_t cpu, bool protect) {
  json::object metadata{
      {"name", "worker"},
      {"namespace", "jhub"},
      {"labels", json::object{{"dask.org/cluster-name", cluster},
                              {"dask.org/workergroup-name", cluster + "-default"},
                              {"dask.org/component", "worker"}}},
      {"ownerReferences", json::array{json::object{{"apiVersion", "apps/v1"},
                                                   {"kind", "ReplicaSet"},
                                                   {"name", cluster + "-default-worker-5d8f9c7b6"},
                                                   {"controller", true}}}}};
  if (protect) {
    metadata["annotations"] =
        json::object{{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"}};
  }
  return json::object{
      {"metadata", std::move(metadata)},
      {"spec",
       json::object{
           {"containers",
            json::array{container(std::to_string(cpu), std::to_string(cpu * 6) + "Gi", false)}},
           {"tolerations", json::array{json::object{{"key", "dask"},
                                                    {"operator", "Equal"},
                                                    {"value", "worker"},
                                                    {"effect", "NoSchedule"}}}},
           {"nodeSelector", json::object{{"cloud.google.com/gke-nodepool", "dask-workers"}}}}}};
}

double round2(double v) {
  return std::round(v * 100.0) / 100.0;
}

json::object event(int64_t at, const char* kind, const std::string& group) {
  return json::object{{"at", std::to_string(at) + "s"}, {kind, group}};
}

json::object day(uint64_t seed, int users, bool protect, const std::string& retire) {
  Rng rng(seed);
  json::array events;
  constexpr int64_t kHour = 3600;
  for (int u = 0; u < users; ++u) {
    const std::string user = "user-" + std::to_string(u);
    const int64_t arrive = rng.uniform(0, 10 * kHour);
    const int64_t leave = arrive + rng.uniform(1 * kHour, 5 * kHour);
    const bool gpu = rng.chance(10);
    json::object nb = event(arrive, "start", user + "-notebook");
    nb["replicas"] = 1;
    nb["pod"] = notebook(user, gpu);
    events.push_back(std::move(nb));
    events.push_back(event(leave, "stop", user + "-notebook"));
    const int64_t clusters = rng.uniform(0, 3);
    for (int64_t c = 0; c < clusters; ++c) {
      const std::string name = user + "-dask-" + std::to_string(c);
      const int64_t start = rng.uniform(arrive, leave - 10 * 60);
      const int64_t stop = std::min(leave, start + rng.uniform(15 * 60, 2 * kHour));
      const int64_t sizes[] = {4, 8, 8, 16, 16, 32};
      const int64_t n = sizes[rng.uniform(0, 5)];
      const int64_t cpus[] = {1, 1, 2, 4};
      const int64_t cpu = cpus[rng.uniform(0, 3)];
      json::object st = event(start, "start", name);
      st["replicas"] = n;
      st["pod"] = worker(name, cpu, protect);
      events.push_back(std::move(st));
      // adapt(): idle phases shrink the cluster, new work grows it again.
      int64_t t = start;
      while (true) {
        t += rng.uniform(5 * 60, 30 * 60);
        if (t >= stop) break;
        json::object sc = event(t, "scale", name);
        sc["replicas"] = rng.chance(50) ? std::max<int64_t>(1, n / rng.uniform(2, 4)) : n;
        events.push_back(std::move(sc));
      }
      events.push_back(event(stop, "stop", name));
    }
  }
  return json::object{{"cluster", json::object{{"nodes", json::array{core_node()}},
                                               {"pods", json::array{hub_pod()}}}},
                      {"pools", pools_doc()},
                      {"events", std::move(events)},
                      {"retire", retire},
                      {"end", "24h"}};
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 1;
  int users = 60;
  std::string output = "table", scenario_file, retire = "newest", consolidate = "none";
  std::string unneeded_time;
  bool check = false, protect = false, tile = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seed") {
      seed = std::stoull(value());
    } else if (a == "--users") {
      users = std::stoi(value());
    } else if (a == "--output") {
      output = value();
    } else if (a == "--scenario") {
      scenario_file = value();
    } else if (a == "--check") {
      check = true;
    } else if (a == "--retire") {
      retire = value();
      if (!packing::parse_retire(retire)) {
        std::cerr << "--retire " << retire << ": not one of newest, upstream, node-aware\n";
        return 2;
      }
    } else if (a == "--consolidate") {
      consolidate = value();
      if (!packing::parse_consolidate(consolidate)) {
        std::cerr << "--consolidate " << consolidate << ": not one of none, move\n";
        return 2;
      }
    } else if (a == "--protect-workers") {
      protect = true;
    } else if (a == "--tile") {
      tile = true;
    } else if (a == "--unneeded-time") {
      unneeded_time = value();
      if (auto d = pools::parse_duration(unneeded_time); !d || *d < 0) {
        std::cerr << "--unneeded-time " << unneeded_time << ": not a Go duration such as 5m\n";
        return 2;
      }
    } else {
      std::cerr << "usage: tightpack_daskhub_day [--seed N] [--users N] [--retire "
                   "newest|upstream|node-aware]\n"
                   "       [--protect-workers] [--tile] [--consolidate none|move]\n"
                   "       [--unneeded-time DURATION]\n"
                   "       [--output table|json] [--scenario FILE]\n"
                   "       [--check]\n";
      return 2;
    }
  }
  if (output != "table" && output != "json") {
    std::cerr << "--output " << output << ": not table or json\n";
    return 2;
  }
  json::object doc = day(seed, users, protect, retire);
  const bool moves = consolidate == "move";
  if (moves) doc["consolidate"] = consolidate;
  if (!scenario_file.empty()) std::ofstream(scenario_file) << json::serialize(doc) << "\n";
  auto scenario = packing::decode_pack_scenario(doc);
  if (!scenario) {
    std::cerr << scenario.error().what() << "\n";
    return 1;
  }
  // Every workload at the shape `tightpack advise` suggests for its pool.
  std::vector<packing::TiledWorkload> tiled;
  if (tile) {
    auto changed = packing::tile_workloads(*scenario, tiled);
    if (!changed) {
      std::cerr << changed.error().what() << "\n";
      return 1;
    }
    scenario = std::move(*changed);
  }
  if (!unneeded_time.empty()) {
    auto changed = packing::with_unneeded_time(*scenario, *pools::parse_duration(unneeded_time));
    if (!changed) {
      std::cerr << changed.error().what() << "\n";
      return 1;
    }
    scenario = std::move(*changed);
  }
  auto report = packing::run_pack_report(*scenario);
  if (!report) {
    std::cerr << report.error().what() << "\n";
    return 1;
  }
  if (output == "json") {
    json::array profiles;
    for (const auto& f : report->profiles) {
      json::object pools;
      for (const auto& p : f.pools) pools[p.pool] = round2(p.node_hours);
      profiles.push_back(json::object{{"profile", f.profile},
                                      {"nodeHours", round2(f.node_hours)},
                                      {"evicted", f.pods_evicted},
                                      {"busyNodeHours", round2(f.busy_node_hours)},
                                      {"repackNodeHours", round2(f.repack_node_hours)},
                                      {"lowerBoundNodeHours", round2(f.lower_bound_node_hours)},
                                      {"pendingAtEnd", f.pending_at_end},
                                      {"podHoursWaiting", round2(f.pending_pod_hours)},
                                      {"nodesAdded", f.nodes_added},
                                      {"pools", std::move(pools)}});
      if (moves) packing::encode_move_figures(f, profiles.back().as_object());
    }
    json::object out{{"seed", seed},
                     {"users", users},
                     {"retire", retire},
                     {"workers", protect ? "protected" : "evictable"},
                     {"tiled", static_cast<int64_t>(tiled.size())},
                     {"lowerBound", round2(report->profiles.front().lower_bound_node_hours)},
                     {"profiles", std::move(profiles)}};
    if (moves) out["consolidate"] = consolidate;
    if (!unneeded_time.empty()) out["unneededTime"] = unneeded_time;
    std::cout << json::serialize(out) << "\n";
    return 0;
  }
  std::printf(
      "DaskHub day: seed %llu, %d users, %zu events, 24 h, Dask workers %s, a shrink retires "
      "%s%s%s%s%s\n\n",
      static_cast<unsigned long long>(seed), users, scenario->events.size(),
      protect ? "safe-to-evict \"false\"" : "evictable (the operator's default)", retire.c_str(),
      tile ? ", workloads at the shapes that tile their nodes" : "",
      moves ? ", nodes emptied by moving their workers" : "",
      unneeded_time.empty() ? "" : ", nodes unneeded for ", unneeded_time.c_str());
  std::printf("%-16s %10s %10s %10s %10s %8s %8s %8s %8s\n", "profile", "node-h", "busy-h", "core",
              "user", "dask", "gpu-t4", "waiting", "evicted");
  for (const auto& f : report->profiles) {
    double per[4] = {0, 0, 0, 0};
    for (const auto& p : f.pools) {
      const char* names[] = {"core", "user", "dask-workers", "gpu-t4"};
      for (int k = 0; k < 4; ++k) {
        if (p.pool == names[k]) per[k] = p.node_hours;
      }
    }
    std::printf("%-16s %10.2f %10.2f %10.2f %10.2f %8.2f %8.2f %8lld %8lld\n", f.profile.c_str(),
                f.node_hours, f.busy_node_hours, per[0], per[1], per[2], per[3],
                static_cast<long long>(f.pending_at_end), static_cast<long long>(f.pods_evicted));
  }
  std::printf("%-16s %10.2f\n", "lower bound", report->profiles.front().lower_bound_node_hours);
  if (moves) {
    std::printf("\n%-16s %10s %10s %10s %10s %12s\n", "moves", "nodes", "workers", "abandoned",
                "taken back", "overlap w-h");
    for (const auto& f : report->profiles) {
      std::printf("%-16s %10lld %10lld %10lld %10lld %12.2f\n", f.profile.c_str(),
                  static_cast<long long>(f.nodes_emptied), static_cast<long long>(f.workers_moved),
                  static_cast<long long>(f.moves_abandoned),
                  static_cast<long long>(f.emptied_taken_back), f.move_overlap_worker_hours);
    }
  }
  if (check) {
    const auto& p = report->profiles;
    bool ok = p.size() == 3 && p[0].profile == "default" && p[1].profile == "most-allocated" &&
              p[2].profile == "tightpack";
    for (const auto& f : p)
      ok = ok && f.pending_at_end == 0 && f.node_hours >= f.lower_bound_node_hours;
    // Packing beats spreading in node-hours and in workers evicted. Between
    // the two packing profiles only protected workers give a fixed order:
    // where cluster-autoscaler may evict them, which nodes empty first moves
    // either by under 1 % (bench/RESULTS.md).
    ok = ok && p[1].node_hours <= p[0].node_hours && p[2].node_hours <= p[0].node_hours &&
         p[1].pods_evicted <= p[0].pods_evicted && p[2].pods_evicted <= p[0].pods_evicted;
    // Protected workers never move; the operator's own do, under every profile.
    if (protect) ok = ok && p[2].node_hours <= p[1].node_hours && p[0].pods_evicted == 0;
    if (!protect) ok = ok && p[0].pods_evicted > 0;
    if (!ok) {
      std::fprintf(
          stderr,
          "check failed: want packing <= default node-hours and evictions%s, none waiting\n",
          protect ? ", tightpack <= most-allocated, no eviction" : ", some eviction");
      return 1;
    }
  }
  return 0;
}
