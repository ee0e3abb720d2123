// The engine's decision time per incoming pod of a scenario, measured as
// kube-scheduler-reference --timings measures kube-scheduler's: from the pod
// to the chosen node (tightpack: compiling the pod's plan and deciding on
// every node), without decoding the scenario or writing the answer, and with
// each decision's pod then placed so that the next sees it.
//
//   build/release/bench/tightpack_decision_timings [--replicas] SCENARIO.json [TIMINGS.tsv]
//
// Writes one line per pod, "scenario index, pod, nodes, nanoseconds" (the
// reference's format), to TIMINGS.tsv or standard output. With --replicas the
// incoming pods are taken as copies of the first, placed as `tightpack
// predict --replicas` places them (simulate_replicas: one plan, incremental
// updates); each line then carries the mean time per copy.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tightpack/decode.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/replay.hpp"
#include "tightpack/simulate.hpp"

using namespace tightpack;

int main(int argc, char** argv) {
  bool replicas = false;
  if (argc > 1 && std::string_view(argv[1]) == "--replicas") {
    replicas = true;
    ++argv;
    --argc;
  }
  if (argc < 2) {
    std::cerr << "usage: tightpack_decision_timings [--replicas] SCENARIO.json [TIMINGS.tsv]\n";
    return 2;
  }
  std::ifstream file(argv[1]);
  if (!file) {
    std::cerr << "tightpack_decision_timings: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::stringstream text;
  text << file.rdbuf();
  auto doc = parse_json(text.str());
  if (!doc) {
    std::cerr << argv[1] << ": " << doc.error().what() << "\n";
    return 1;
  }
  auto scenario = decode_scenario(*doc);
  if (!scenario) {
    std::cerr << argv[1] << ": " << scenario.error().what() << "\n";
    return 1;
  }
  auto cluster = Cluster::build(scenario->nodes, scenario->pods, scenario->objects);
  if (!cluster) {
    std::cerr << argv[1] << ": " << cluster.error().what() << "\n";
    return 1;
  }
  std::ofstream tsv;
  if (argc > 2) tsv.open(argv[2], std::ios::app);
  std::ostream& out = argc > 2 ? static_cast<std::ostream&>(tsv) : std::cout;
  if (replicas && !scenario->incoming.empty()) {
    const Pod& pod = scenario->incoming.front();
    const auto n = static_cast<int64_t>(scenario->incoming.size());
    const auto start = std::chrono::steady_clock::now();
    auto result = simulate_replicas(*cluster, scenario->profile, pod, n);
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    if (!result) {
      std::cerr << pod.key() << ": " << result.error().what() << "\n";
      return 1;
    }
    for (const auto& r : result->replicas)
      out << 0 << '\t' << r.pod << '\t' << cluster->size() << '\t' << ns / n << '\n';
    return 0;
  }
  for (const Pod& pod : scenario->incoming) {
    const auto start = std::chrono::steady_clock::now();
    auto plan = PodPlan::make(*cluster, scenario->profile, pod);
    if (!plan) {
      std::cerr << pod.key() << ": " << plan.error().what() << "\n";
      return 1;
    }
    PlanScratch scratch;
    Decision d = decide(*plan, *cluster, scratch);
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    out << 0 << '\t' << pod.key() << '\t' << cluster->size() << '\t' << ns << '\n';
    if (d.chosen) cluster->place(*d.chosen, plan->bound(pod.key()));
  }
  // Tearing down a scenario of 150,000 pods takes longer than deciding a
  // hundred of them and is not what is measured: leave it to the system.
  out.flush();
  std::_Exit(0);
}
