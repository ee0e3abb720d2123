#include "tightpack/built_in_profiles.hpp"

#include <boost/json.hpp>

#include "config_edit.hpp"
#include "tightpack/decode.hpp"

namespace tightpack {

namespace json = boost::json;
using namespace config_edit;

namespace {

json::value parsed(const char* text) {
  return parse_json(text).value();
}

json::value default_config() {
  return parsed(kDefaultSchedulerConfig);
}

json::value z2jh_config() {
  return parsed(kZ2jhUserSchedulerConfig);
}

json::value rtc_config() {
  json::value config = default_config();
  fit_args(first_profile(config))["scoringStrategy"] = json::parse(R"({
      "type": "RequestedToCapacityRatio",
      "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
      "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]}})");
  return config;
}

// The z2jh profile plus TightpackCohort between InterPodAffinity and
// MostAllocated's fill (docs/packing.md says why 1210), under its own name and
// without z2jh's leader-election lock.
json::value tightpack_config() {
  json::value config = z2jh_config();
  config.as_object().erase("leaderElection");
  json::object& profile = first_profile(config);
  profile["schedulerName"] = "tightpack";
  json::array& enabled = score_list(profile, "enabled");
  auto after = enabled.begin();
  while (after != enabled.end() && !is_named(*after, "InterPodAffinity")) ++after;
  if (after != enabled.end()) ++after;
  enabled.insert(after, json::object{{"name", "TightpackCohort"}, {"weight", 1210}});
  return config;
}

// zero-to-jupyterhub's released charts (4.x) run their user-scheduler on v1.30.14.
constexpr BuiltInProfile kBuiltInProfiles[] = {
    {"default", "default-scheduler", "", "kube-scheduler's default (spreads)", default_config},
    {"most-allocated", "jupyterhub-user-scheduler", "v1.30",
     "zero-to-jupyterhub user-scheduler (packs; kube-scheduler v1.30)", z2jh_config},
    {"rtc", "default-scheduler", "", "kube-scheduler with RequestedToCapacityRatio scoring (packs)",
     rtc_config},
    {"tightpack", "tightpack", "", "tightpack (packs, keeps a Dask cluster together)",
     tightpack_config},
};

}  // namespace

std::span<const BuiltInProfile> built_in_profiles() {
  return kBuiltInProfiles;
}

std::string built_in_profile_names() {
  std::string names;
  for (const BuiltInProfile& p : kBuiltInProfiles)
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

Result<json::value> built_in_scheduler_config(std::string_view name, const JsonPath& path) {
  for (const BuiltInProfile& p : kBuiltInProfiles) {
    if (name == p.name) return p.config();
  }
  return Error{path.str(),
               "unknown profile " + quote_value(name) + " (" + built_in_profile_names() + ")"};
}
Result<Profile> built_in_profile(std::string_view name, const JsonPath& path) {
  auto config = built_in_scheduler_config(name, path);
  if (!config) return config.error();
  auto decoded = decode_scheduler_configuration(*config, path);
  if (!decoded) return decoded.error();
  return std::move(decoded->profiles.front());
}

const char* const kDefaultSchedulerConfig = R"({
  "apiVersion": "kubescheduler.config.k8s.io/v1",
  "kind": "KubeSchedulerConfiguration",
  "profiles": [{"schedulerName": "default-scheduler"}]
})";

const char* const kZ2jhUserSchedulerConfig = R"({
  "apiVersion": "kubescheduler.config.k8s.io/v1",
  "kind": "KubeSchedulerConfiguration",
  "leaderElection": {"resourceNamespace": "jhub", "resourceName": "user-scheduler-lock"},
  "profiles": [{
    "schedulerName": "jupyterhub-user-scheduler",
    "plugins": {
      "score": {
        "disabled": [
          {"name": "NodeResourcesBalancedAllocation"},
          {"name": "NodeAffinity"},
          {"name": "InterPodAffinity"},
          {"name": "NodeResourcesFit"},
          {"name": "ImageLocality"}
        ],
        "enabled": [
          {"name": "NodeAffinity", "weight": 14631},
          {"name": "InterPodAffinity", "weight": 1331},
          {"name": "NodeResourcesFit", "weight": 121},
          {"name": "ImageLocality", "weight": 11}
        ]
      }
    },
    "pluginConfig": [{
      "name": "NodeResourcesFit",
      "args": {
        "scoringStrategy": {
          "type": "MostAllocated",
          "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
        }
      }
    }]
  }]
})";

}  // namespace tightpack
