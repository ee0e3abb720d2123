// cluster-autoscaler's decisions (master as of 2026-04-23, the commit
// tests/conformance/autoscaler-reference pins) on a cluster snapshot: which node group
// grows by how many nodes for the pending pods (loop after loop), and which
// nodes scale-down finds unneeded. Fit questions go through the same filters
// kube-scheduler runs (PodPlan over a Cluster with the default profile), which
// is what CA's "scheduler predicates" are.
//
// Integers where CA is integer; double exactly where CA computes in float64
// (estimator scores, least-waste, utilization), operation for operation.
//
// The parts, as cluster-autoscaler splits its packages: scenario.hpp (the input),
// node_template.hpp, estimator.hpp, expander.hpp, limits.hpp, drain.hpp and
// utilization.hpp; this header is the loop and includes them all.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>

#include "tightpack/autoscaler/drain.hpp"
#include "tightpack/autoscaler/estimator.hpp"
#include "tightpack/autoscaler/expander.hpp"
#include "tightpack/autoscaler/limits.hpp"
#include "tightpack/autoscaler/node_template.hpp"
#include "tightpack/autoscaler/scenario.hpp"
#include "tightpack/autoscaler/utilization.hpp"

namespace tightpack::autoscaler {

// Runs the loops (and scale-down when asked) and encodes the result document.
boost::json::value run_autoscale(const AutoscaleScenario& s);

// Text in, one JSON document out ({"error": "…"} when it cannot be decoded).
std::string autoscale_text(std::string_view scenario_json);

}  // namespace tightpack::autoscaler
