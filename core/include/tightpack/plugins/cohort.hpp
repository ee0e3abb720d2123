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

}  // namespace tightpack::plugins
