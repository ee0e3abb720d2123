// TightpackCohort: a score plugin of tightpack's own profile (not in
// kube-scheduler). Pods that will leave together should share nodes: when a
// Dask cluster shuts down or adapt() retires its workers, the nodes its
// workers filled empty out completely and cluster-autoscaler can remove
// them, instead of leaving holes in nodes that other users' pods keep alive.
//
// A pod's cohort is the value of the first cohort label it carries. The
// score of a node is the share of its allocatable cpu or memory (whichever
// is larger) already requested by pods of the incoming pod's cohort, 0..100;
// 0 for every node when the pod has no cohort. It changes only on the node a
// pod lands on, like the resource scores.
#pragma once

#include <string>
#include <string_view>

#include "tightpack/framework/plugin.hpp"
#include "tightpack/go_int.hpp"
#include "tightpack/model.hpp"

namespace tightpack::plugins {

inline constexpr std::string_view kCohortLabels[] = {
    "dask.org/cluster-name",     // dask-kubernetes (operator and classic KubeCluster)
    "gateway.dask.org/cluster",  // dask-gateway
    "tightpack.io/cohort",       // anything else that leaves together
};

// "<label>=<value>", or empty when the pod carries none of the labels.
std::string cohort_of(const Pod& pod);

// min(100, max(cpu%, memory%)) of allocatable requested by the cohort, in whole percent.
int64_t cohort_score(int64_t cohort_cpu, int64_t cohort_memory, int64_t alloc_cpu,
                     int64_t alloc_memory);

struct TightpackCohortPlugin {
  static constexpr Plugin kId = Plugin::TightpackCohort;
  struct State {
    // The pod's cohort, whatever the profile: the placed pod carries it
    // (BoundPod::cohort), and other pods' scores read it.
    std::string cohort;
  };
  static State prepare(const PlanContext& ctx) { return State{cohort_of(ctx.pod)}; }
  static void reserve(const State& s, BoundPod& placed) { placed.cohort = s.cohort; }
  // Inline: it runs for every feasible node of every decision the profile scores with it.
  static int64_t score(const State& s, const Cluster& c, NodeIndex n) {
    if (s.cohort.empty()) return 0;
    int64_t cpu = 0, memory = 0;
    for (const BoundPod& p : c.pods_on(n)) {
      if (p.cohort != s.cohort) continue;
      cpu = go_add(cpu, p.usage.cpu);
      memory = go_add(memory, p.usage.memory);
    }
    return cohort_score(cpu, memory, c.alloc_cpu()[n], c.alloc_memory()[n]);
  }
};

}  // namespace tightpack::plugins
