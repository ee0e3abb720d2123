// Scheduling profiles, read from kube-scheduler's own KubeSchedulerConfiguration
// (kubescheduler.config.k8s.io/v1) with its defaulting, plugin-set merging and
// MultiPoint expansion, so that a reader who knows the file format gets the
// plugins, order and weights kube-scheduler would run.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tightpack/error.hpp"
#include "tightpack/json_path.hpp"
#include "tightpack/model.hpp"
#include "tightpack/plugins/registry.hpp"

namespace tightpack {

enum class ScoringStrategy : uint8_t { LeastAllocated, MostAllocated, RequestedToCapacityRatio };

const char* strategy_name(ScoringStrategy s);

struct ResourceSpec {
  std::string name;
  int64_t weight = 1;
};

struct ShapePoint {
  int64_t utilization = 0;  // 0..100
  int64_t score = 0;        // 0..10, as configured
};

struct FitArgs {
  ScoringStrategy strategy = ScoringStrategy::LeastAllocated;
  std::vector<ResourceSpec> resources{{"cpu", 1}, {"memory", 1}};
  std::vector<ShapePoint> shape;  // RequestedToCapacityRatio only
  std::vector<std::string> ignored_resources;
  std::vector<std::string> ignored_resource_groups;
};

// PodTopologySpreadArgs: the constraints of pods that have none of their own.
struct SpreadArgs {
  bool system_defaulting = true;  // defaultingType System: hostname 3 and zone 5, ScheduleAnyway
  std::vector<TopologySpreadConstraint> default_constraints;  // defaultingType List
};

// InterPodAffinityArgs.
struct InterPodAffinityArgs {
  int32_t hard_pod_affinity_weight = 1;  // SetDefaults_InterPodAffinityArgs
  bool ignore_preferred_terms_of_existing_pods = false;
};

struct ScorePluginEntry {
  Plugin plugin;
  int64_t weight;
};

struct Profile {
  std::string scheduler_name = "default-scheduler";
  std::vector<Plugin> filters;           // enabled Filter plugins, in run order
  std::vector<ScorePluginEntry> scores;  // enabled Score plugins, in run order
  bool preemption = true;                // DefaultPreemption at PostFilter
  // DynamicResources at PostFilter (kube-scheduler's defaults put it before
  // DefaultPreemption while DynamicResourceAllocation is on, as by default).
  bool dra_post_filter = true;
  // The kube-scheduler minor release the engine decides and words its answers
  // as: 37 (v1.37.2, the default), 36 (v1.36.3), 35 (v1.35.4; the next
  // zero-to-jupyterhub pins v1.35.7) or 30 (v1.30.14, the release
  // zero-to-jupyterhub's released charts run). What differs is in
  // kube_release.hpp, one predicate per upstream change.
  int kube_minor = 37;
  FitArgs fit;
  std::vector<ResourceSpec> balanced_resources{{"cpu", 1}, {"memory", 1}};
  SpreadArgs spread;
  InterPodAffinityArgs inter_pod_affinity;
  // VolumeBindingArgs.shape (StorageCapacityScoring), when configured; the
  // default is (0, 10), (100, 0) from v1.37, where the feature is on.
  std::optional<std::vector<ShapePoint>> volume_shape;
  // VolumeBindingArgs.bindTimeoutSeconds: how long PreBind waits for the
  // pod's claims to be bound (the in-cluster scheduler's binding cycle).
  int64_t volume_bind_timeout_seconds = 600;
  int32_t percentage_of_nodes_to_score = 0;  // 0: kube-scheduler's adaptive default

  bool filter_enabled(Plugin p) const;
  int64_t score_weight(Plugin p) const;  // 0 when the plugin does not score
};

struct SchedulerConfiguration {
  std::vector<Profile> profiles;
  int32_t percentage_of_nodes_to_score = 0;

  const Profile* find(std::string_view scheduler_name) const;
};

// Decodes a KubeSchedulerConfiguration document (already parsed from YAML or
// JSON). Unknown fields, unknown plugins and invalid plugin arguments are errors
// that name the field, as kube-scheduler's strict decoding and validation are.
Result<SchedulerConfiguration> decode_scheduler_configuration(const boost::json::value& doc,
                                                              const JsonPath& path);

// kube-scheduler's default profile (no configuration file).
Profile default_profile();

// Encodes a profile for explanations: plugin lists, weights, NodeResourcesFit args.
boost::json::value encode_profile(const Profile& profile);

}  // namespace tightpack
