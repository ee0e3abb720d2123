// The conformance interface: scenarios in the format of shared/corpus
// (profile, nodes, bound pods, incoming pods) in, kube-scheduler's decisions
// out. The native `tightpack replay` and the wasm build both call this, so
// their output is the same bytes.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tightpack/error.hpp"
#include "tightpack/framework/framework.hpp"
#include "tightpack/model.hpp"
#include "tightpack/objects.hpp"
#include "tightpack/profile.hpp"

namespace tightpack {

struct Scenario {
  std::string profile_name;
  Profile profile;
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<Pod> incoming;  // replicas already expanded to <name>-<i>
  ApiObjects objects;         // namespaces, services, replicaSets, ...
};

// Resolves a scenario profile: a built-in name (built_in_profiles.hpp) or an
// object naming one with the corpus format's overrides (scoringStrategy,
// scoreWeights, disabledScore, schedulerConfig, release).
Result<Profile> resolve_scenario_profile(const boost::json::value& spec, const JsonPath& path,
                                         std::string& name);

// Each incoming pod gets a full explanation (every node's verdict and scores),
// so a scenario is bounded: more incoming pods than this is an error.
inline constexpr size_t kMaxIncomingPods = 100000;

// Accepts a corpus line ({"scenario": …, "expected": …}) or a bare scenario.
Result<Scenario> decode_scenario(const boost::json::value& doc);

// Schedules the incoming pods one after another and encodes the decisions.
boost::json::value run_scenario(const Scenario& scenario);

// One decision as the corpus encodes it.
boost::json::object encode_decision(const PodPlan& plan, const Cluster& cluster, const Decision& d);

// Text in, one JSON document out: {"profile": …, "results": […]} or {"error": "…"}.
std::string replay_text(std::string_view scenario_json);

}  // namespace tightpack
